package io.github.lowwater;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The core packages import nothing but the JDK and {@code slf4j-api}; integrations (Kafka, metrics,
 * the HdrHistogram-based tuning) live in their own packages and the core never depends on them.
 */
class ArchitectureTest {

  private static final String[] CORE = {
    "io.github.lowwater",
    "io.github.lowwater.window",
    "io.github.lowwater.align",
    "io.github.lowwater.join",
    "io.github.lowwater.internal"
  };

  private final JavaClasses production =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.github.lowwater");

  @Test
  void corePackagesDependOnlyOnTheJdkAndSlf4j() {
    classes()
        .that()
        .resideInAnyPackage(CORE)
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "javax.annotation..",
            "org.slf4j..",
            "io.github.lowwater",
            "io.github.lowwater.window",
            "io.github.lowwater.align",
            "io.github.lowwater.join",
            "io.github.lowwater.internal")
        .because("the core must stay usable without Kafka or any metrics library")
        .check(production);
  }

  @Test
  void theWatermarkCoreDoesNotDependOnWindows() {
    noClasses()
        .that()
        .resideInAPackage("io.github.lowwater")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.github.lowwater.window..",
            "io.github.lowwater.align..",
            "io.github.lowwater.join..")
        .check(production);
  }

  @Test
  void theKafkaIntegrationDependsOnlyOnTheCoreKafkaClientsAndTheJdk() {
    classes()
        .that()
        .resideInAPackage("io.github.lowwater.kafka")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "org.slf4j..",
            "org.apache.kafka.clients..",
            "org.apache.kafka.common..",
            "io.github.lowwater",
            "io.github.lowwater.window",
            "io.github.lowwater.join",
            "io.github.lowwater.internal",
            "io.github.lowwater.kafka")
        .because("kafka-clients is the one optional dependency this package may use")
        .check(production);
  }

  @Test
  void theMicrometerBindersDependOnlyOnTheCoreKafkaMicrometerAndTheJdk() {
    classes()
        .that()
        .resideInAPackage("io.github.lowwater.micrometer")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "org.slf4j..",
            "io.micrometer..",
            "org.apache.kafka..",
            "io.github.lowwater",
            "io.github.lowwater.window",
            "io.github.lowwater.join",
            "io.github.lowwater.align",
            "io.github.lowwater.internal",
            "io.github.lowwater.kafka",
            "io.github.lowwater.tuning",
            "io.github.lowwater.micrometer")
        .because("micrometer-core is the one optional dependency this package adds")
        .check(production);
  }

  @Test
  void noOtherPackageDependsOnMicrometer() {
    noClasses()
        .that()
        .resideOutsideOfPackage("io.github.lowwater.micrometer")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.micrometer..", "io.github.lowwater.micrometer..")
        .because("the core and the Kafka integration must stay usable without Micrometer")
        .check(production);
  }

  @Test
  void theTuningPackageDependsOnlyOnTheCoreHdrHistogramAndTheJdk() {
    classes()
        .that()
        .resideInAPackage("io.github.lowwater.tuning")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "java..",
            "org.HdrHistogram..",
            "io.github.lowwater",
            "io.github.lowwater.internal",
            "io.github.lowwater.tuning")
        .because("HdrHistogram is the one optional dependency this package adds")
        .check(production);
  }

  @Test
  void onlyTheTuningAndMicrometerPackagesDependOnHdrHistogram() {
    noClasses()
        .that()
        .resideOutsideOfPackages("io.github.lowwater.tuning", "io.github.lowwater.micrometer")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.HdrHistogram..", "io.github.lowwater.tuning..")
        .because("the core and the Kafka integration must stay usable without HdrHistogram")
        .check(production);
  }
}
