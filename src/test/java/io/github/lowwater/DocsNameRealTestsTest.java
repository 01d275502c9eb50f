package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs name tests; a renamed or deleted test must fail the build rather than leave the docs
 * pointing at nothing. Every backticked name in {@code docs/*.md} and {@code README.md} that looks
 * like a test method (a camel-case sentence of at least four words that is not a name of the API or
 * of a benchmark) or a test class ({@code ...Test}) must exist in {@code src/test}, or in the
 * replay tool's {@code cli/src/test} (its own Maven project, documented in {@code docs/tuning.md}),
 * or in the test kit's, the Spring Boot starter's or the Spring Boot example's tests.
 */
class DocsNameRealTestsTest {

  /** A camel-case sentence of four words or more: how test methods are named here. */
  static final Pattern TEST_METHOD = Pattern.compile("`([a-z]+(?:[A-Z][a-z0-9]*){3,})`");

  static final Pattern TEST_CLASS = Pattern.compile("`([A-Z][A-Za-z0-9]*Test)`");

  @Test
  void everyTestNamedInTheDocsExists() throws IOException {
    String tests =
        allSources("src/test/java")
            + allSources("cli/src/test/java")
            + allSources("lowwater-test/src/test/java")
            + allSources("lowwater-spring-boot-starter/src/test/java")
            + allSources("examples/spring-boot/src/test/java");
    String main =
        allSources("src/main/java")
            + allSources("lowwater-test/src/main/java")
            + allSources("lowwater-spring-boot-starter/src/main/java")
            + allSources("cli/src/main/java")
            + allSources("benchmarks/src/main/java"); // benchmark methods, such as byHandGlobalMax
    List<Path> docs = new ArrayList<>();
    docs.add(Path.of("README.md"));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    Set<String> missing = new TreeSet<>();
    int named = 0;
    for (Path doc : docs) {
      String text = Files.readString(doc);
      Matcher m = TEST_METHOD.matcher(text);
      while (m.find()) {
        if (main.contains(m.group(1))) {
          continue; // an option or a method of the API, such as quietAdvanceMaxLag
        }
        named++;
        if (!tests.contains("void " + m.group(1) + "(")) {
          missing.add(doc + ": " + m.group(1));
        }
      }
      Matcher c = TEST_CLASS.matcher(text);
      while (c.find()) {
        named++;
        if (!tests.contains("class " + c.group(1) + " ")) {
          missing.add(doc + ": " + c.group(1));
        }
      }
    }
    assertThat(named).as("the docs name tests").isGreaterThan(40);
    assertThat(missing).as("tests named in the docs that do not exist").isEmpty();
  }

  /** A numbered rule of docs/semantics.md: "12. **Name.** text" up to the next rule or heading. */
  static final Pattern RULE =
      Pattern.compile("(?m)^(\\d+)\\. (.*?)(?=^\\d+\\. |^#|\\z)", Pattern.DOTALL);

  @Test
  void everyNumberedRuleOfTheSemanticsNamesATest() throws IOException {
    String tests = allSources("src/test/java");
    String text = Files.readString(Path.of("docs/semantics.md"));
    Matcher rule = RULE.matcher(text);
    Set<Integer> withoutTest = new TreeSet<>();
    int rules = 0;
    while (rule.find()) {
      rules++;
      boolean named = false;
      Matcher m = TEST_METHOD.matcher(rule.group(2));
      while (m.find() && !named) {
        named = tests.contains("void " + m.group(1) + "(");
      }
      Matcher c = TEST_CLASS.matcher(rule.group(2));
      while (c.find() && !named) {
        named = tests.contains("class " + c.group(1) + " ");
      }
      if (!named) {
        withoutTest.add(Integer.parseInt(rule.group(1)));
      }
    }
    assertThat(rules).as("numbered rules found").isGreaterThan(30);
    assertThat(withoutTest).as("rules of docs/semantics.md that name no test").isEmpty();
  }

  /** Every Java source under {@code root}, concatenated; empty if there is no such folder. */
  static String allSources(String root) throws IOException {
    StringBuilder all = new StringBuilder();
    if (!Files.isDirectory(Path.of(root))) {
      return "";
    }
    try (Stream<Path> files = Files.walk(Path.of(root))) {
      for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
        all.append(Files.readString(p)).append('\n');
      }
    }
    return all.toString();
  }
}
