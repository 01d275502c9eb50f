package io.github.lowwater.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: the pinned JSON, the table, the chart, exit statuses and error lines. */
class ReplayCommandTest {

  @TempDir Path dir;

  /** The input of {@code ReplayTest.lateEventsWrongWindowsAndDelaysPerLateness}, as CSV. */
  private Path input() throws Exception {
    return Cli.csv(
        dir, "0,0,0,a", "0,1,10000,a", "0,2,70000,a", "0,3,50000,a", "0,4,130000,a", "0,5,5000,a");
  }

  /** Replays {@code file} with the window, latenesses and idle timeouts given, as JSON, parsed. */
  private static JsonNode json(Path file, String window, String lateness, String idle)
      throws Exception {
    Cli run =
        Cli.run(
            "replay",
            "--file",
            file.toString(),
            "--window",
            window,
            "--lateness",
            lateness,
            "--idle",
            idle,
            "--format",
            "json");
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
    return new ObjectMapper().readTree(run.out());
  }

  @Test
  void thePinnedUsagePrintsOneJsonObjectPerLatenessAndIdlePair() throws Exception {
    JsonNode json = json(input(), "1m", "0s,30s,2m", "2m,10m");
    assertThat(json.isArray()).isTrue();
    assertThat(json).hasSize(6);
    List<String> rows = new ArrayList<>();
    for (JsonNode o : json) {
      assertThat(o.fieldNames())
          .toIterable()
          .containsExactly(
              "allowedLatenessMillis",
              "idleTimeoutMillis",
              "events",
              "late",
              "lateFraction",
              "windows",
              "windowsWrong",
              "delayP50Millis",
              "delayP99Millis",
              "peakOpenWindows",
              "idleTransitions");
      rows.add(
          o.get("allowedLatenessMillis").asLong()
              + "/"
              + o.get("idleTimeoutMillis").asLong()
              + " events="
              + o.get("events").asLong()
              + " late="
              + o.get("late").asLong()
              + " wrong="
              + o.get("windowsWrong").asLong()
              + " p50="
              + o.get("delayP50Millis"));
    }
    assertThat(rows)
        .containsExactly(
            "0/120000 events=6 late=2 wrong=1 p50=10000",
            "30000/120000 events=6 late=1 wrong=1 p50=70000",
            "120000/120000 events=6 late=0 wrong=0 p50=null",
            "0/600000 events=6 late=2 wrong=1 p50=10000",
            "30000/600000 events=6 late=1 wrong=1 p50=70000",
            "120000/600000 events=6 late=0 wrong=0 p50=null");
    assertThat(json.get(0).get("lateFraction").asDouble()).isEqualTo(2.0 / 6);
  }

  @Test
  void theDefaultTableIsAlignedAndEndsWithTheRecommendation() throws Exception {
    Cli run =
        Cli.run("replay", "--file", input().toString(), "--window", "1m", "--lateness", "0s,2m");

    assertThat(run.status()).isZero();
    assertThat(run.out().lines())
        .containsExactly(
            "lateness  idle  events  late  late fraction  windows wrong  delay p50  delay p99"
                + "  peak open windows  idle transitions",
            "      0s    2m       6     2       3.33e-01         1 of 3        10s        10s"
                + "                  1                 0",
            "      2m    2m       6     0       0.00e+00         0 of 3          -          -"
                + "                  3                 0",
            "",
            // lags 20 s and 125 s: 5m is the first round value above both; gaps of 60 s: 2m
            "recommended: allowed lateness 5m (late fraction <= 1e-4, expected 0.00e+00, results 5m"
                + " after the window end); idle timeout 2m (> p99.9 gap (1m130ms), 0.0 idle"
                + " flaps/day)");
  }

  @Test
  void theChartIsAnSvgFile() throws Exception {
    Path svg = dir.resolve("trade.svg");
    Cli run =
        Cli.run(
            "replay",
            "--file",
            input().toString(),
            "--window",
            "1m",
            "--lateness",
            "0s,2m",
            "--chart",
            svg.toString(),
            "--format",
            "json");
    assertThat(run.status()).as(run.err()).isZero();
    assertThat(Files.readString(svg)).startsWith("<?xml").contains("<svg");
  }

  @Test
  void badInputExitsWithStatusTwoAndOneLineNamingTheLineAndTheField() throws Exception {
    Path bad = Cli.csv(dir, "0,0,1000,a", "0,1,1001,b", "0,2,12x,c");
    Cli run = Cli.run("replay", "--file", bad.toString(), "--window", "5m", "--format", "json");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .isEqualTo("error: line 4, field timestampMillis: not a number: \"12x\"\n");
  }

  /**
   * Regression (issue 16): a file that is not UTF-8 (here Latin-1) exited with status 1 and "error:
   * Input length = 1", the decoder's message.
   */
  @Test
  void aFileThatIsNotUtf8ExitsWithStatusTwoAndOneLineNamingTheLine() throws Exception {
    Path latin1 = dir.resolve("latin1.csv");
    Files.writeString(
        latin1, CsvInput.HEADER + "\n0,0,1000,a\n0,1,2000,café\n", StandardCharsets.ISO_8859_1);
    Cli run = Cli.run("replay", "--file", latin1.toString(), "--window", "5m", "--format", "json");
    assertThat(run.status()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).isEqualTo("error: line 3: not valid UTF-8 (byte 13 of the line)\n");
  }

  /**
   * Regression (issue 16): valid rows at -2 and {@code Long.MAX_VALUE} exited with status 1 and
   * "error: millis must be >= 0: -9223372036854775807": the replay moved its clock by the
   * difference of the two event times, which overflowed. Event time is any {@code long}.
   */
  @Test
  void eventTimesAtTheEndsOfTheLongRangeReplay() throws Exception {
    Path ends =
        Cli.csv(
            dir,
            "0,0,-2,a",
            "0,1," + Long.MAX_VALUE + ",a",
            "1,0," + Long.MIN_VALUE + ",b",
            "1,1,0,b");
    JsonNode json = json(ends, "1m", "0s,2m", "2m,10m");
    assertThat(json).hasSize(4);
    for (JsonNode o : json) {
      assertThat(o.get("events").asLong()).isEqualTo(4);
      assertThat(o.get("windows").asLong()).isEqualTo(4);
    }
    Cli table = Cli.run("replay", "--file", ends.toString(), "--window", "1m");
    assertThat(table.status()).as(table.err()).isZero();
    assertThat(table.out()).contains("recommended: allowed lateness ");
  }

  /**
   * Regression (issue 16): {@code --idle ,} and {@code --lateness ,} split into no duration at all
   * and exited with status 0 and an empty result, while {@code --idle ,2m} exited with 2; {@code
   * 2m,} dropped its empty duration silently.
   */
  @Test
  void aListOfDurationsWithAnEmptyOneExitsWithStatusTwoNamingTheOptionAndTheValue()
      throws Exception {
    String file = input().toString();
    for (String option : List.of("--idle", "--lateness")) {
      for (String value : List.of(",", ",,", "2m,")) {
        Cli run = Cli.run("replay", "--file", file, "--window", "1m", option, value);
        assertThat(run.status()).as(option + " " + value).isEqualTo(2);
        assertThat(run.out()).as(option + " " + value).isEmpty();
        assertThat(run.err())
            .isEqualTo(
                "error: "
                    + option
                    + " must be durations separated by commas, none empty: \""
                    + value
                    + "\"\n");
      }
      for (String value : List.of(",2m", "0s,,2m")) { // the converter's message, as before
        assertThat(Cli.run("replay", "--file", file, "--window", "1m", option, value).err())
            .isEqualTo(
                "error: Invalid value for option '"
                    + option
                    + "' (DURATION): not a duration (like 0s, 30s, 2m, 1h30m, 250ms): \"\"\n");
      }
    }
  }

  @Test
  void badOptionsExitWithStatusTwoAndOneLine() throws Exception {
    String file = input().toString();
    assertThat(Cli.run("replay", "--file", file, "--window", "5x").err())
        .isEqualTo(
            "error: Invalid value for option '--window': not a duration (like 0s, 30s, 2m, 1h30m,"
                + " 250ms): \"5x\"\n");
    assertThat(Cli.run("replay", "--file", file).err())
        .isEqualTo("error: Missing required option: '--window=DURATION'\n");
    assertThat(Cli.run("replay", "--file", file, "--window", "0s").err())
        .isEqualTo("error: --window must be > 0: 0ms\n");
    assertThat(Cli.run("replay", "--file", file, "--window", "1m", "--idle", "0s").err())
        .isEqualTo("error: --idle must be > 0: 0ms\n");
    assertThat(Cli.run("replay", "--file", file, "--window", "1m", "--format", "xml").err())
        .isEqualTo("error: --format must be table or json: xml\n");
    assertThat(Cli.run("replay", "--window", "1m").err())
        .isEqualTo("error: give --file, or --bootstrap-servers and --topic\n");
    assertThat(Cli.run("replay", "--file", file, "--window", "1m", "--topic", "t").err())
        .isEqualTo("error: --file does not combine with --bootstrap-servers or --topic\n");
    assertThat(Cli.run("replay", "--file", file, "--window", "1m", "--from-offset", "3").err())
        .isEqualTo(
            "error: --from, --to, --from-offset, --to-offset and --consumer-config need --topic\n");
    assertThat(
            Cli.run("replay", "--file", dir.resolve("none.csv").toString(), "--window", "1m").err())
        .startsWith("error: --file: no such file: ");
    assertThat(Cli.run("replay", "--window", "1m", "--nope").err())
        .startsWith("error: Unknown option: '--nope'");
    assertThat(Cli.run())
        .extracting(Cli::status, Cli::err)
        .containsExactly(2, "error: missing a command: replay (see --help)\n");
    for (String[] args :
        List.of(
            new String[] {"replay", "--file", file, "--window", "5x"},
            new String[] {"replay", "--nope"},
            new String[] {"replay", "--window", "1m", "--lateness", "-1s", "--file", file})) {
      Cli run = Cli.run(args);
      assertThat(run.status()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.err().lines()).as(String.join(" ", args)).hasSize(1);
      assertThat(run.out()).isEmpty();
    }
  }

  @Test
  void helpExitsWithStatusZero() {
    Cli run = Cli.run("replay", "--help");
    assertThat(run.status()).isZero();
    assertThat(run.out()).contains("--lateness").contains("--consumer-config");
  }

  @Test
  void durationsAreReadInEveryUnitAndAsIso() {
    assertThat(Durations.parseMillis("0")).isZero();
    assertThat(Durations.parseMillis("0s")).isZero();
    assertThat(Durations.parseMillis("250ms")).isEqualTo(250);
    assertThat(Durations.parseMillis("1h30m")).isEqualTo(5_400_000);
    assertThat(Durations.parseMillis("2d")).isEqualTo(172_800_000);
    assertThat(Durations.parseMillis("PT2M")).isEqualTo(120_000);
    for (String bad :
        List.of("", "5", "m", "1m5", "-1s", "PT-1S", "Pfoo", "99999999999999999999s")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parseMillis(bad))
          .as(bad)
          .isInstanceOf(picocli.CommandLine.TypeConversionException.class);
    }
  }
}
