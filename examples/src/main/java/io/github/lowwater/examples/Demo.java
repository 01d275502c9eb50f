package io.github.lowwater.examples;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The demo's entry point.
 *
 * <pre>
 * mvn -B -q install -DskipTests &amp;&amp; mvn -B -q -f examples compile exec:java
 * ... -Dexec.args="--in-memory"                      replay the catch-up in memory, no broker
 * ... -Dexec.args="--bootstrap-servers host:9092"    use a real cluster instead of the in-process one
 * ... -Dexec.args="--svg chart.svg"                  where to write the chart
 *                                                    (default examples/target/lowwater-demo.svg)
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
    if (list.contains("--in-memory")) {
      InMemoryDemo.run(System.out);
      return;
    }
    int i = list.indexOf("--bootstrap-servers");
    String bootstrap = i >= 0 && i + 1 < list.size() ? list.get(i + 1) : null;
    if (i >= 0 && bootstrap == null) {
      throw new IllegalArgumentException("--bootstrap-servers needs a value: host:port,...");
    }
    int s = list.indexOf("--svg");
    Path svg =
        s >= 0 && s + 1 < list.size()
            ? Path.of(list.get(s + 1))
            : Path.of(System.getProperty("lowwater.demo.out", "."), "lowwater-demo.svg");
    BrokerDemo.run(bootstrap, svg, System.out);
  }
}
