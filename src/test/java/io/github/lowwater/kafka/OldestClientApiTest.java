package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The guard of the supported {@code kafka-clients} range (docs/kafka.md, "Supported clients"): the
 * library's main code may only use the Kafka API that the oldest supported client has. Every class,
 * method, constructor and field of {@code org.apache.kafka} that a main class refers to is looked
 * up in the oldest client's jar (copied to {@code target/kafka-clients-oldest} by the build); one
 * that is missing there, or has another signature, fails the build whatever client the tests run
 * on.
 */
class OldestClientApiTest {
  private static JavaClasses ours;

  @BeforeAll
  static void importMainClasses() {
    ours =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("io.github.lowwater");
    assertThat(ours).as("main classes imported").hasSizeGreaterThan(100);
  }

  @Test
  void mainCodeUsesOnlyTheOldestSupportedClientsApi() {
    assertThat(missingIn(ours, jar("lowwater.kafka.oldest.jar")))
        .as("Kafka API the oldest supported client lacks (docs/kafka.md, Supported clients)")
        .isEmpty();
  }

  /**
   * The guard finds a newer-only API: against the client just below the range (4.0), it names what
   * bounds the range, and nothing else.
   */
  @Test
  void theClientBelowTheRangeLacksWhatBoundsIt() {
    assertThat(missingIn(ours, jar("lowwater.kafka.below.jar")))
        .containsExactly(
            "io.github.lowwater.kafka.TransactionalSink -> class"
                + " org.apache.kafka.common.errors.ApplicationRecoverableException");
  }

  /**
   * The guard finds a method that is missing too, not only a class: the test kit closes a consumer
   * with {@code close(CloseOptions)}, which 4.1 added to a class that 4.0 has.
   */
  @Test
  void aMissingMethodOfAnExistingClassIsFound() {
    JavaClasses kit =
        new ClassFileImporter().importClasses(io.github.lowwater.test.TestGroup.class);
    assertThat(missingIn(kit, jar("lowwater.kafka.below.jar")))
        .contains(
            "io.github.lowwater.test.TestGroup -> org.apache.kafka.clients.consumer.KafkaConsumer"
                + ".close(org.apache.kafka.clients.consumer.CloseOptions)");
    assertThat(missingIn(kit, jar("lowwater.kafka.oldest.jar"))).isEmpty();
  }

  /** The tests run on the client the build says they do: a leg on the oldest is not a no-op. */
  @Test
  void testsRunOnTheConfiguredClient() throws IOException {
    Properties version = new Properties();
    // What the client reports as its version (its AppInfoParser reads this resource).
    try (InputStream in =
        KafkaConsumer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
      assertThat(in).as("kafka-clients' version resource").isNotNull();
      version.load(in);
    }
    assertThat(version.getProperty("version"))
        .isEqualTo(System.getProperty("lowwater.kafka.version"));
  }

  private static Path jar(String property) {
    String path = System.getProperty(property);
    assertThat(path).as("system property %s, set by the build", property).isNotNull();
    Path jar = Path.of(path);
    assertThat(Files.isRegularFile(jar)).as("%s exists", jar).isTrue();
    return jar;
  }

  /**
   * "owner -> what it names" for every Kafka reference of a checked class that {@code jar} lacks.
   */
  private static Set<String> missingIn(JavaClasses checked, Path jar) {
    ClassLoader kafka = LOADERS.computeIfAbsent(jar, OldestClientApiTest::loaderOf);
    Set<String> missing = new TreeSet<>();
    for (JavaClass c : checked) {
      for (Dependency d : c.getDirectDependenciesFromSelf()) {
        String name = d.getTargetClass().getBaseComponentType().getName();
        if (isKafka(name) && load(kafka, name) == null) {
          missing.add(c.getName() + " -> class " + name);
        }
      }
      for (JavaAccess<?> access : c.getAccessesFromSelf()) {
        AccessTarget target = access.getTarget();
        String ownerName = target.getOwner().getName();
        Class<?> owner = isKafka(ownerName) ? load(kafka, ownerName) : null;
        if (owner != null && !has(owner, target)) {
          missing.add(c.getName() + " -> " + target.getFullName());
        }
      }
    }
    return missing;
  }

  /**
   * One loader per jar; each loads Kafka's classes from its jar first, everything else as usual.
   */
  private static final Map<Path, ClassLoader> LOADERS = new ConcurrentHashMap<>();

  private static ClassLoader loaderOf(Path jar) {
    try {
      return new KafkaFirst(jar.toUri().toURL(), OldestClientApiTest.class.getClassLoader());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads {@code org.apache.kafka} classes from its jar only, never from the test classpath. */
  private static final class KafkaFirst extends URLClassLoader {
    KafkaFirst(URL jar, ClassLoader parent) {
      super(new URL[] {jar}, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!isKafka(name)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> c = findLoadedClass(name);
        return c != null ? c : findClass(name); // ClassNotFoundException: not in this jar
      }
    }
  }

  /** The class from the jar, not initialized; null if the jar lacks it. */
  private static Class<?> load(ClassLoader kafka, String name) {
    try {
      return Class.forName(name, false, kafka);
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  private static boolean isKafka(String className) {
    return className.startsWith("org.apache.kafka.");
  }

  /** Whether {@code owner} (or a supertype) has a member with the target's exact signature. */
  private static boolean has(Class<?> owner, AccessTarget target) {
    if (target instanceof AccessTarget.FieldAccessTarget field) {
      for (Class<?> t : hierarchy(owner)) {
        for (Field f : t.getDeclaredFields()) {
          if (f.getName().equals(field.getName())
              && f.getType().getName().equals(field.getRawType().getName())) {
            return true;
          }
        }
      }
      return false;
    }
    AccessTarget.CodeUnitAccessTarget call = (AccessTarget.CodeUnitAccessTarget) target;
    List<String> parameters =
        call.getRawParameterTypes().stream().map(JavaClass::getName).collect(Collectors.toList());
    if (call.getName().equals("<init>")) {
      for (Constructor<?> k : owner.getDeclaredConstructors()) {
        if (names(k.getParameterTypes()).equals(parameters)) {
          return true;
        }
      }
      return false;
    }
    String returns = call.getRawReturnType().getName();
    for (Class<?> t : hierarchy(owner)) {
      for (Method m : t.getDeclaredMethods()) {
        if (m.getName().equals(call.getName())
            && names(m.getParameterTypes()).equals(parameters)
            && m.getReturnType().getName().equals(returns)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The class, its superclasses and all its interfaces. */
  private static Set<Class<?>> hierarchy(Class<?> owner) {
    Set<Class<?>> all = new LinkedHashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(owner));
    while (!todo.isEmpty()) {
      Class<?> t = todo.pop();
      if (all.add(t)) {
        if (t.getSuperclass() != null) {
          todo.add(t.getSuperclass());
        }
        todo.addAll(Arrays.asList(t.getInterfaces()));
      }
    }
    all.add(Object.class); // an interface's calls may name Object's methods
    return all;
  }

  private static List<String> names(Class<?>[] types) {
    return Arrays.stream(types).map(Class::getName).collect(Collectors.toList());
  }
}
