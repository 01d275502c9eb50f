package io.github.lowwater.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An instance of an application in a JVM of its own, started from the test's own class path, and
 * killed as a process is killed: {@link #kill()} sends SIGKILL ({@link Process#destroyForcibly()}),
 * so the instance sends no leave, commits nothing and runs no callback, its consumers stay members
 * until the session timeout, and whatever it wrote after its last commit is all that is left of it.
 * This is the crash that {@link TestGroup#crash} can only approach inside one JVM, for applications
 * whose consumers the test does not drive itself (a Spring Boot service, say).
 *
 * <p>A halt between a write and a commit: start the instance with {@link #haltAfterWrites(int)} and
 * have the instance's writer call {@link #afterWrite()} once its write has returned (the test's
 * wrapper of the writer, not the application's code): at the n-th write the JVM halts ({@link
 * Runtime#halt}: no shutdown hook, no commit, no leave), with status {@link #HALT_STATUS}.
 *
 * <pre>{@code
 * List<String> args = List.of("--spring.kafka.bootstrap-servers=" + broker.bootstrapServers());
 * try (JvmInstance a = JvmInstance.start("a", MyAppForTests.class,
 *     List.of(JvmInstance.haltAfterWrites(1)), args)) {      // alone: it writes first
 *   assertThat(a.awaitExit(Duration.ofSeconds(60))).isEqualTo(JvmInstance.HALT_STATUS);
 * }
 * try (JvmInstance b = JvmInstance.start("b", MyAppForTests.class, List.of(), args)) {
 *   // ... once b has taken over:
 *   assertThat(b.kill()).isEqualTo(JvmInstance.SIGKILL_STATUS);
 * }
 * }</pre>
 *
 * <p>The instance's standard output and error go to {@link #log()}, a file that outlives it (its
 * path is in every failure message). Thread-safe; each instance costs a JVM's start (a few seconds
 * for a Spring Boot service).
 */
public final class JvmInstance implements AutoCloseable {

  /**
   * The system property that arms {@link #afterWrite()} in the instance: the number of the write
   * after which it halts.
   */
  public static final String HALT_AFTER_WRITES = "lowwater.test.haltAfterWrites";

  /** The status a JVM halted by {@link #afterWrite()} exits with. */
  public static final int HALT_STATUS = 86;

  /** The status of a process killed by SIGKILL, as {@link Process#exitValue()} reports it. */
  public static final int SIGKILL_STATUS = 128 + 9;

  private static final AtomicInteger WRITES = new AtomicInteger();

  private final String name;
  private final Process process;
  private final Path log;

  private JvmInstance(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} in a new JVM, with the test JVM's {@code java} and class path.
   *
   * @param name names the instance in messages and its log file
   * @param mainClass the class whose {@code main} runs, on the test's class path
   * @param jvmOptions options of the new JVM ({@code -D...}, {@link #haltAfterWrites(int)})
   * @param args the arguments of {@code main}
   * @return the running instance
   * @throws NullPointerException if an argument is null
   * @throws UncheckedIOException if the JVM cannot be started
   */
  public static JvmInstance start(
      String name, Class<?> mainClass, List<String> jvmOptions, List<String> args) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(mainClass, "mainClass");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.addAll(Objects.requireNonNull(jvmOptions, "jvmOptions"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(Objects.requireNonNull(args, "args"));
    try {
      Path log = Files.createTempFile("lowwater-" + name + "-", ".log");
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      return new JvmInstance(name, process, log);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start instance " + name + ": " + command, e);
    }
  }

  /**
   * The JVM option that makes the instance halt right after its {@code n}-th write ({@link
   * #afterWrite()}).
   *
   * @param n the write to halt after, {@code >= 1}
   * @return {@code -Dlowwater.test.haltAfterWrites=n}
   * @throws IllegalArgumentException if {@code n < 1}
   */
  public static String haltAfterWrites(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be >= 1: " + n);
    }
    return "-D" + HALT_AFTER_WRITES + "=" + n;
  }

  /**
   * Called inside the instance by its writer, after a write has returned and before the commit:
   * counts the write, and halts the JVM at once ({@link Runtime#halt}, status {@link #HALT_STATUS})
   * if it is the write {@link #HALT_AFTER_WRITES} names. Does nothing when that property is not
   * set. Thread-safe; O(1).
   */
  public static void afterWrite() {
    String armed = System.getProperty(HALT_AFTER_WRITES);
    if (armed != null && WRITES.incrementAndGet() == Integer.parseInt(armed)) {
      System.out.println("lowwater-test: halting after write " + armed + ", before its commit");
      System.out.flush();
      Runtime.getRuntime().halt(HALT_STATUS);
    }
  }

  /**
   * Waits until the instance's output has a line containing {@code text} (for example the line its
   * framework logs once started).
   *
   * @param text what to wait for
   * @param timeout how long
   * @throws IllegalStateException if the instance exits first, or the time runs out (the message
   *     names the log)
   * @throws InterruptedException if interrupted
   */
  public void awaitOutput(String text, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!output().contains(text)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "instance "
                + name
                + " exited ("
                + process.exitValue()
                + ") before '"
                + text
                + "'; "
                + log);
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "instance " + name + " did not print '" + text + "' in " + timeout + "; " + log);
      }
      Thread.sleep(50); // polling with a deadline
    }
  }

  /**
   * Waits for the instance to exit by itself (a halt).
   *
   * @param timeout how long
   * @return its exit status ({@link #HALT_STATUS} after a halt)
   * @throws IllegalStateException if it is still running after {@code timeout}
   * @throws InterruptedException if interrupted
   */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(
          "instance " + name + " still runs after " + timeout + "; " + log);
    }
    return process.exitValue();
  }

  /**
   * Kills the instance with SIGKILL and waits for it to be gone.
   *
   * @return its exit status: {@link #SIGKILL_STATUS} if it was running, or the status it had
   *     already exited with
   * @throws InterruptedException if interrupted
   */
  public int kill() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor();
  }

  /**
   * Whether the instance is running.
   *
   * @return true until it exits or is killed
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * The file its standard output and error go to.
   *
   * @return the log's path
   */
  public Path log() {
    return log;
  }

  /**
   * What the instance has printed so far.
   *
   * @return the log's content
   */
  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + log, e);
    }
  }

  /** Kills the instance if it still runs (SIGKILL) and waits for it; the log stays. */
  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // killed all the same; not waited for
      }
    }
  }

  @Override
  public String toString() {
    return "JvmInstance[" + name + ", pid " + process.pid() + ", " + log + "]";
  }
}
