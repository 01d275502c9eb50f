package io.github.lowwater;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every {@code ```java} block of README.md and docs/*.md compiles against the real API (issue 45,
 * item 7): each block appears, verbatim up to whitespace, inside a snippet region ({@code //
 * snippet: <name>} to {@code // end snippet}) of a compiled test source in {@link #SNIPPETS}, where
 * an ellipsis {@code ...} in the block stands for code the block leaves out (the pieces between
 * ellipses appear in order). The snippet sources are compiled with the tests, so a block that does
 * not compile, or a block changed without its snippet, fails here. Issue 45 found docs/kafka.md's
 * join example calling {@code onPoll(..., Order::parse, Payment::parse)}, which does not compile
 * (the mappers take the record), and modelling "a payment within 10 minutes after its order" with
 * {@code JoinInterval.within}; nothing compiled the blocks then.
 *
 * <p>docs/spring.md's blocks use the Spring Boot starter's API, which this module does not compile
 * against: their snippets are in the example service's test sources ({@code SpringDocSnippets}),
 * compiled by its build in {@code .ci/run}.
 */
class DocsCodeBlocksTest {

  /** Where the snippet regions are: compiled test sources. */
  static final List<Path> SNIPPETS =
      List.of(
          Path.of("src/test/java/io/github/lowwater/docs"),
          // docs/testing.md's JvmInstance block and docs/spring.md's blocks, compiled by the
          // example's build (.ci/run)
          Path.of("examples/spring-boot/src/test/java"));

  static final String ELLIPSIS = "...";

  /** A code block: where it is and its lines. */
  record Block(Path file, int line, String code) {
    @Override
    public String toString() {
      return file + ":" + line;
    }
  }

  /** The {@code ```java} blocks of {@code file}, in order. */
  static List<Block> blocks(Path file) {
    List<String> lines = lines(file);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).trim().startsWith("```java")) {
        int start = i;
        StringBuilder code = new StringBuilder();
        for (i++; i < lines.size() && !lines.get(i).trim().startsWith("```"); i++) {
          code.append(lines.get(i)).append('\n');
        }
        assertThat(i).as("the block at %s:%d is closed", file, start + 1).isLessThan(lines.size());
        blocks.add(new Block(file, start + 1, code.toString()));
      }
    }
    return blocks;
  }

  /** The snippet regions of every source under {@link #SNIPPETS}, whitespace removed. */
  static List<String> regions() {
    List<String> regions = new ArrayList<>();
    for (Path dir : SNIPPETS) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
          StringBuilder region = null;
          for (String l : lines(f)) {
            String t = l.trim();
            if (t.startsWith("// snippet:")) {
              assertThat(region).as("%s: a snippet inside a snippet", f).isNull();
              region = new StringBuilder();
            } else if (t.equals("// end snippet")) {
              assertThat(region).as("%s: an end without a snippet", f).isNotNull();
              regions.add(normalize(region.toString()));
              region = null;
            } else if (region != null) {
              region.append(l).append('\n');
            }
          }
          assertThat(region).as("%s: a snippet without an end", f).isNull();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return regions;
  }

  /**
   * The code without whitespace and without the {@code //} of line comments: line breaks, indents
   * and the wrapping of a long comment over several {@code //} lines are the formatter's.
   */
  static String normalize(String code) {
    return code.replaceAll("\\s+", "").replace("//", "");
  }

  /**
   * Whether the block's pieces between ellipses appear in {@code region} in order; returns the
   * first piece that does not, or null.
   */
  static String missingPiece(String block, String region) {
    int from = 0;
    for (String piece : normalize(block).split("\\.\\.\\.", -1)) {
      if (piece.isEmpty()) {
        continue;
      }
      int at = region.indexOf(piece, from);
      if (at < 0) {
        return piece;
      }
      from = at + piece.length();
    }
    return null;
  }

  static List<Path> docs() {
    List<Path> docs = new ArrayList<>();
    docs.add(Path.of("README.md"));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void everyJavaBlockOfTheDocsIsInACompiledSnippet() {
    List<String> regions = regions();
    List<Block> blocks = new ArrayList<>();
    docs().forEach(d -> blocks.addAll(blocks(d)));
    assertThat(blocks).as("the docs have java blocks").isNotEmpty();
    List<String> wrong = new ArrayList<>();
    for (Block b : blocks) {
      assertThat(normalize(b.code().replace(ELLIPSIS, ""))).as("%s is empty", b).isNotEmpty();
      if (regions.stream().noneMatch(r -> missingPiece(b.code(), r) == null)) {
        String closest = null;
        for (String r : regions) {
          String missing = missingPiece(b.code(), r);
          if (closest == null || missing.length() < closest.length()) {
            closest = missing;
          }
        }
        wrong.add(b + " is in no snippet; the nearest region lacks: " + closest);
      }
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void everySnippetIsTheCodeOfABlock() {
    List<Block> blocks = new ArrayList<>();
    docs().forEach(d -> blocks.addAll(blocks(d)));
    List<String> regions = regions();
    for (int i = 0; i < regions.size(); i++) {
      String region = regions.get(i);
      assertThat(blocks)
          .as(
              "snippet %d (%s...) is a stale copy: no block of the docs is in it",
              i, abbrev(region))
          .anyMatch(b -> missingPiece(b.code(), region) == null);
    }
  }

  @Test
  void anEllipsisStandsForCodeButEveryOtherDifferenceFails() {
    String region = normalize("Foo foo = Foo.create(a, b);\nfoo.run(); // runs it\n");
    assertThat(missingPiece("Foo foo = ...;\nfoo.run(); // runs it", region)).isNull();
    assertThat(missingPiece("Foo foo =\n    Foo.create(a, b);\nfoo.run();", region)).isNull();
    assertThat(missingPiece("foo.run(); ... Foo foo", region)).isEqualTo("Foofoo");
    assertThat(missingPiece("Foo foo = Foo.create(b, a);", region))
        .isEqualTo("Foofoo=Foo.create(b,a);");
  }

  static String abbrev(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60);
  }
}
