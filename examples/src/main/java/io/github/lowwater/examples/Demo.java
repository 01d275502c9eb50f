package io.github.lowwater.examples;

import java.util.Arrays;
import java.util.List;

/**
 * The demo's entry point.
 *
 * <pre>
 * mvn -B -q install -DskipTests &amp;&amp; mvn -B -q -f examples compile exec:java
 * ... -Dexec.args="--in-memory"                      replay the catch-up in memory, no broker
 * ... -Dexec.args="--bootstrap-servers host:9092"    use a real cluster instead of the in-process one
 * </pre>
 */
public final class Demo {

  private Demo() {}

  /**
   * Runs the demo.
   *
   * @param args {@code --in-memory}, or {@code --bootstrap-servers <servers>}, or nothing
   * @throws Exception if the broker cannot be started or reached
   */
  public static void main(String[] args) throws Exception {
    List<String> list = Arrays.asList(args);
    if (list.contains("--help") || list.contains("-h")) {
      System.out.println(
          "usage: Demo [--in-memory | --bootstrap-servers <host:port,...>] [--svg <file>]");
      return;
    }
    InMemoryDemo.run(System.out);
  }
}
