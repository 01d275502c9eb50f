package io.github.lowwater.testing;

/**
 * How many random traces a model-based test runs. The test suite ({@code mvn verify}) runs all of
 * them. Mutation testing runs each test once per mutant that it covers, so PIT's configuration
 * ({@code pom.xml}, profile {@code pit}) sets {@code -Dlowwater.trials.divisor=10} and runs a tenth
 * of them, never fewer than eight: the first traces of each test, the same ones the suite runs
 * first. See {@code docs/mutation-testing.md}.
 */
public final class Trials {

  private static final int DIVISOR = Math.max(1, Integer.getInteger("lowwater.trials.divisor", 1));

  /** {@code -Dlowwater.trials.multiplier=10}: ten times the traces, for a run by hand. */
  private static final int MULTIPLIER =
      Math.max(1, Integer.getInteger("lowwater.trials.multiplier", 1));

  private Trials() {}

  /**
   * Returns how many of {@code traces} random traces to run.
   *
   * @param traces the number the test suite runs, {@code >= 1}
   * @return {@code traces} times the multiplier, or under PIT a tenth of it but at least {@code
   *     min(traces, 8)}
   */
  public static int of(int traces) {
    return Math.max(Math.min(traces, 8), (int) ((long) traces * MULTIPLIER / DIVISOR));
  }
}
