package io.github.lowwater.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the tool in-process or in a child JVM and keeps what it printed. */
record Cli(int status, String out, String err) {

  /** Runs {@link Main#run} in this JVM. */
  static Cli run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Cli(
        status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * Runs the tool's main class in a child JVM on this test's class path, so that everything it
   * prints, the logs of the Kafka client included, is captured.
   */
  static Cli fork(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(List.of(args));
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("err.txt");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the tool did not end within 120 s: " + command);
    }
    return new Cli(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** Writes a CSV file of the given lines under the header. */
  static Path csv(Path dir, String... lines) throws IOException {
    Path f = dir.resolve("input.csv");
    Files.writeString(f, CsvInput.HEADER + "\n" + String.join("\n", lines) + "\n");
    return f;
  }
}
