package io.github.lowwater.examples;

import java.nio.file.Path;

/**
 * The demo's entry point.
 *
 * <pre>
 * mvn -B -q install -DskipTests &amp;&amp; mvn -B -q -f examples compile exec:java
 * ... -Dexec.args="--in-memory"                      replay the catch-up in memory, no broker
 * ... -Dexec.args="--bootstrap-servers host:9092"    use a real cluster instead of the in-process one
 * ... -Dexec.args="--svg chart.svg"                  where to write the chart
 *                                                    (default examples/target/lowwater-demo.svg)
 * ... -Dexec.args="--instances 3"                    a consumer group of 3 instances, one killed
 *                                                    mid-run (2 to 6; with --bootstrap-servers too)
 * ... -Dexec.args="--transactional"                  exactly-once rows to an output topic, through a
 *                                                    crash mid-transaction (with --bootstrap-servers)
 * ... -Dexec.args="--reconcile"                      a source topic reconciled against its lagging,
 *                                                    lossy replica (with --bootstrap-servers)
 * ... -Dexec.args="--export-csv feed.csv"            write the demo's feed as the replay tool's CSV
 *                                                    (docs/tuning.md), and run nothing else
 * </pre>
 *
 * <p>A bad argument exits with status 2 and a one-line message on standard error.
 */
public final class Demo {

  private static final String USAGE =
      "usage: Demo [--in-memory | --bootstrap-servers <host:port,...>] [--svg <file>]"
          + " | [--bootstrap-servers <host:port,...>] --instances <2-"
          + GroupDemo.PARTITIONS
          + "> | [--bootstrap-servers <host:port,...>] --transactional"
          + " | [--bootstrap-servers <host:port,...>] --reconcile | --export-csv <file>";

  private Demo() {}

  /**
   * Runs the demo.
   *
   * @param args {@code --in-memory}, or {@code --bootstrap-servers <servers>}, {@code --svg
   *     <file>}, {@code --instances <n>}, {@code --export-csv <file>}, or nothing
   * @throws Exception if the broker cannot be started or reached
   */
  public static void main(String[] args) throws Exception {
    boolean inMemory = false;
    String bootstrap = null;
    Path svg = null;
    int instances = 0;
    Path exportCsv = null;
    boolean transactional = false;
    boolean reconcile = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--help", "-h" -> {
          System.out.println(USAGE);
          return;
        }
        case "--in-memory" -> inMemory = true;
        case "--bootstrap-servers" -> bootstrap = value(args, ++i, "host:port,...");
        case "--svg" -> svg = Path.of(value(args, ++i, "a file"));
        case "--instances" -> instances = instances(value(args, ++i, "a number of instances"));
        case "--export-csv" -> exportCsv = Path.of(value(args, ++i, "a file"));
        case "--transactional" -> transactional = true;
        case "--reconcile" -> reconcile = true;
        default -> usageError("unknown argument '" + args[i] + "'");
      }
    }
    if (exportCsv != null) {
      if (inMemory
          || svg != null
          || instances > 0
          || bootstrap != null
          || transactional
          || reconcile) {
        usageError("--export-csv does not combine with other arguments");
      }
      FeedExport.write(exportCsv, System.out);
      return;
    }
    if (reconcile) {
      if (inMemory || svg != null || instances > 0 || transactional) {
        usageError(
            "--reconcile does not combine with --in-memory, --svg, --instances or"
                + " --transactional");
      }
      ReconcileDemo.run(bootstrap, System.out);
      return;
    }
    if (transactional) {
      if (inMemory || svg != null || instances > 0) {
        usageError("--transactional does not combine with --in-memory, --svg or --instances");
      }
      TransactionalDemo.run(bootstrap, System.out);
      return;
    }
    if (instances > 0) {
      if (inMemory || svg != null) {
        usageError("--instances does not combine with --in-memory or --svg");
      }
      GroupDemo.run(bootstrap, instances, System.out);
      return;
    }
    if (inMemory) {
      InMemoryDemo.run(System.out);
      PaneTable.print(System.out);
      return;
    }
    if (svg == null) {
      svg = Path.of(System.getProperty("lowwater.demo.out", "."), "lowwater-demo.svg");
    }
    BrokerDemo.run(bootstrap, svg, System.out);
    PaneTable.print(System.out);
  }

  private static String value(String[] args, int i, String what) {
    if (i >= args.length || args[i].startsWith("--")) {
      usageError(args[i - 1] + " needs a value: " + what);
    }
    return args[i];
  }

  private static int instances(String value) {
    int n;
    try {
      n = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 2 || n > GroupDemo.PARTITIONS) {
      usageError(
          "--instances needs a whole number from 2 to " + GroupDemo.PARTITIONS + ": " + value);
    }
    return n;
  }

  /** Prints the one-line message and exits with status 2, as for any bad argument. */
  private static void usageError(String message) {
    System.err.println("Demo: " + message + " (--help for usage)");
    System.exit(2);
  }
}
