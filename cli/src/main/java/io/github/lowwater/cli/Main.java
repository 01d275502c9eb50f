package io.github.lowwater.cli;

import java.io.PrintStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;

/**
 * The entry point of {@code lowwater-cli.jar}: {@code java -jar lowwater-cli.jar replay ...} (see
 * {@link ReplayCommand}).
 *
 * <p>Every error is one line on standard error, {@code error: ...}, with the secrets of {@code
 * --consumer-config} hidden: status 2 for a bad option or bad input, 1 for any other failure.
 */
@Command(
    name = "lowwater",
    mixinStandardHelpOptions = true,
    description = "Lowwater tools: replay recorded data under candidate settings.")
public final class Main implements Runnable {

  /** Exit status of a bad option or bad input. */
  static final int USAGE = 2;

  /** Exit status of any other failure. */
  static final int FAILURE = 1;

  /** The secrets of the run's consumer config: one run per JVM, or per test thread. */
  private static final ThreadLocal<Secrets> SECRETS = ThreadLocal.withInitial(Secrets::none);

  private Main() {}

  /**
   * Runs the tool and exits with its status.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the tool with the given streams and returns its exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    SECRETS.set(Secrets.none());
    try {
      CommandLine cl = new CommandLine(new Main());
      cl.addSubcommand(new CommandLine(new ReplayCommand(out, err)));
      cl.setOut(new java.io.PrintWriter(out, true));
      cl.setErr(new java.io.PrintWriter(err, true));
      cl.setParameterExceptionHandler((ParameterException e, String[] a) -> error(err, e, USAGE));
      cl.setExecutionExceptionHandler(
          (e, c, parsed) -> error(err, e, e instanceof InputException ? USAGE : FAILURE));
      return cl.execute(args);
    } finally {
      SECRETS.remove();
    }
  }

  /** Remembers the secrets to hide from every message of this run. */
  static void secrets(Secrets secrets) {
    SECRETS.set(secrets);
  }

  private static int error(PrintStream err, Exception e, int status) {
    err.println("error: " + oneLine(SECRETS.get().redact(describe(e))));
    err.flush();
    return status;
  }

  /** The message of {@code e} and of its causes, as far as they add something. */
  static String describe(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (sb.indexOf(m) < 0) {
        if (sb.length() > 0) {
          sb.append(": ");
        }
        sb.append(m);
      }
    }
    return sb.toString();
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s*[\\r\\n]+\\s*", " ").trim();
  }

  @Override
  public void run() {
    throw new ParameterException(new CommandLine(this), "missing a command: replay (see --help)");
  }
}
