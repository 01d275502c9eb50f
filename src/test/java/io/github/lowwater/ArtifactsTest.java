package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

/**
 * The published artifacts' poms and what the docs promise of them (docs/releasing.md): the BOM
 * lists every artifact the reactor builds, at one version; each jar is reproducible, has a module
 * name and the metadata Maven Central requires; and the supported kafka-clients range that the
 * README and docs/kafka.md state is the one the build guards and CI tests.
 */
class ArtifactsTest {

  private static final Path ROOT = Path.of("");

  @Test
  void theBomListsEveryPublishedArtifactAtTheLibrarysVersion() throws Exception {
    String version = text(pom(ROOT), "/project/version");
    Map<String, String> published = new TreeMap<>();
    for (Path module : modules()) {
      Document pom = pom(module);
      String artifact = text(pom, "/project/artifactId");
      assertThat(text(pom, "/project/version")).as("%s's version", artifact).isEqualTo(version);
      if (!artifact.equals("lowwater-bom")) {
        published.put(artifact, version);
      }
    }
    assertThat(published).containsKeys("lowwater", "lowwater-test", "lowwater-spring-boot-starter");

    Document bom = pom(ROOT.resolve("lowwater-bom"));
    Map<String, String> listed = new TreeMap<>();
    NodeList deps = nodes(bom, "/project/dependencyManagement/dependencies/dependency");
    for (int i = 0; i < deps.getLength(); i++) {
      Document dep = asDocument(deps.item(i));
      assertThat(text(dep, "/dependency/groupId")).isEqualTo("io.github.lowwater");
      listed.put(text(dep, "/dependency/artifactId"), text(dep, "/dependency/version"));
    }
    assertThat(listed).isEqualTo(published);
    assertThat(nodes(bom, "/project/parent").getLength()).as("the BOM has no parent").isZero();
  }

  @Test
  void everyPublishedJarIsReproducibleNamedAndDescribedForMavenCentral() throws Exception {
    int jars = 0;
    for (Path module : modules()) {
      Document pom = pom(module);
      String artifact = text(pom, "/project/artifactId");
      for (String required :
          List.of("name", "description", "url", "licenses/license/name", "developers", "scm/url")) {
        assertThat(text(pom, "/project/" + required)).as("%s: %s", artifact, required).isNotBlank();
      }
      if (text(pom, "/project/packaging").equals("jar")) {
        jars++;
        assertThat(text(pom, "/project/properties/project.build.outputTimestamp"))
            .as("%s is reproducible", artifact)
            .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(text(pom, "//manifestEntries/Automatic-Module-Name"))
            .as("%s's module name", artifact)
            .startsWith("io.github.lowwater");
        assertThat(text(pom, "//profile[id='artifacts']//artifactId[.='maven-javadoc-plugin']"))
            .as("%s builds a javadoc jar", artifact)
            .isNotBlank();
        assertThat(text(pom, "//profile[id='artifacts']//artifactId[.='maven-source-plugin']"))
            .as("%s builds a sources jar", artifact)
            .isNotBlank();
      }
      assertThat(text(pom, "//profile[id='release']//artifactId[.='maven-gpg-plugin']"))
          .as("%s is signed on release", artifact)
          .isNotBlank();
    }
    assertThat(jars).isEqualTo(3);
  }

  @Test
  void theDocumentedClientRangeIsTheOneGuardedAndTested() throws Exception {
    Document pom = pom(ROOT);
    String oldest = text(pom, "/project/properties/kafka.oldest.version");
    String newest = text(pom, "/project/properties/kafka.version");
    assertThat(oldest).matches("\\d+\\.\\d+\\.\\d+");
    String ci = Files.readString(ROOT.resolve(".ci/run"));
    assertThat(ci).contains("-Dkafka.version=" + oldest);
    assertThat(Files.readString(ROOT.resolve("README.md")))
        .contains("`kafka-clients` " + oldest + " or newer")
        .contains("tested on " + oldest + " and " + newest);
    assertThat(Files.readString(ROOT.resolve("docs/kafka.md")))
        .contains("`kafka-clients` **" + oldest + " and newer**")
        .contains("-Dkafka.version=" + oldest);
  }

  /** The folders of the reactor's modules: the root and its siblings. */
  private static List<Path> modules() throws Exception {
    List<Path> modules = new ArrayList<>();
    NodeList names = nodes(pom(ROOT.resolve("reactor")), "/project/modules/module");
    for (int i = 0; i < names.getLength(); i++) {
      modules.add(ROOT.resolve("reactor").resolve(names.item(i).getTextContent()).normalize());
    }
    return modules;
  }

  private static Document pom(Path folder) throws Exception {
    Path file = (folder.toString().isEmpty() ? Path.of(".") : folder).resolve("pom.xml");
    if (!Files.isRegularFile(file)) {
      throw new IOException("no pom at " + file.toAbsolutePath());
    }
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
  }

  private static Document asDocument(org.w3c.dom.Node node) throws Exception {
    Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().newDocument();
    d.appendChild(d.importNode(node, true));
    return d;
  }

  private static String text(Document d, String path) throws Exception {
    return ((String) xpath().evaluate(path, d, XPathConstants.STRING)).trim();
  }

  private static NodeList nodes(Document d, String path) throws Exception {
    return (NodeList) xpath().evaluate(path, d, XPathConstants.NODESET);
  }

  private static XPath xpath() {
    return XPathFactory.newInstance().newXPath();
  }
}
