package io.github.lowwater.cli;

import io.github.lowwater.tuning.Advice;
import io.github.lowwater.tuning.DurationText;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code lowwater replay}: replays recorded data under several allowed latenesses and idle timeouts
 * in one pass, and prints one row per (lateness, idle) pair, then the advisor's recommendation. The
 * pinned usage, which other tools script against:
 *
 * <pre>
 * java -jar cli/target/lowwater-cli.jar replay --file F --window 5m --lateness 0s,30s,2m --idle 2m --format json
 * </pre>
 *
 * <p>Exit status: 0 on success; 2 for a bad option or bad input (one line on standard error that
 * names the option, or the line number and the field or byte); 1 when the replay fails otherwise
 * (the broker cannot be reached, a file cannot be written), again with one line. Secrets of {@code
 * --consumer-config} are never printed ({@link Secrets}).
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Replays a CSV export or a Kafka topic under every (lateness, idle) pair in one pass and"
          + " prints late events, windows that differ from the ground truth, the delay from window"
          + " end to emission, the peak of open windows and idle transitions, then a"
          + " recommendation.",
      "The replay's clock is driven by the data: it stands at the largest event time read so far."
    })
final class ReplayCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--file",
      paramLabel = "FILE",
      description = "CSV with the header partition,offset,timestampMillis,key")
  Path file;

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...", description = "Kafka")
  String bootstrapServers;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "the topic to replay (Kafka)")
  String topic;

  @Option(
      names = "--consumer-config",
      paramLabel = "FILE",
      description = "client properties (SASL, TLS), as the Kafka tools take; never printed")
  Path consumerConfig;

  @Option(names = "--from", paramLabel = "INSTANT", description = "Kafka: first record time")
  String from;

  @Option(names = "--to", paramLabel = "INSTANT", description = "Kafka: end time (exclusive)")
  String to;

  @Option(names = "--from-offset", paramLabel = "N", description = "Kafka: first offset")
  Long fromOffset;

  @Option(names = "--to-offset", paramLabel = "N", description = "Kafka: end offset (exclusive)")
  Long toOffset;

  @Option(names = "--progress", description = "Kafka: a progress bar on stderr, even if piped")
  boolean progress;

  @Option(
      names = "--window",
      required = true,
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "the tumbling window size, e.g. 5m")
  long windowMillis;

  @Option(
      names = "--lateness",
      split = ",",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "allowed latenesses to try, e.g. 0s,30s,2m (default 2m)")
  List<Long> latenessMillis;

  @Option(
      names = "--idle",
      split = ",",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "idle timeouts to try, e.g. 2m (default 2m)")
  List<Long> idleMillis;

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      defaultValue = "table",
      description = "table (default) or json")
  String format;

  @Option(names = "--chart", paramLabel = "FILE.svg", description = "an SVG chart of the trade")
  Path chart;

  @Option(
      names = "--target-late-fraction",
      paramLabel = "F",
      defaultValue = "1e-4",
      description = "the late fraction the recommendation aims at (default 1e-4)")
  double targetLateFraction;

  private final PrintStream out;
  private final PrintStream err;

  ReplayCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException {
    List<Setting> settings = settings();
    boolean json = format();
    if (!(targetLateFraction >= 0 && targetLateFraction < 1)) {
      throw usage("--target-late-fraction must be in [0, 1): " + targetLateFraction);
    }
    Replay replay = new Replay(windowMillis, settings, targetLateFraction);
    if (file != null) {
      if (bootstrapServers != null || topic != null) {
        throw usage("--file does not combine with --bootstrap-servers or --topic");
      }
      kafkaOnly();
      readFile(replay);
    } else if (bootstrapServers != null && topic != null) {
      readKafka(replay);
    } else {
      throw usage("give --file, or --bootstrap-servers and --topic");
    }
    List<SettingResult> results = replay.finish();
    Optional<Advice> advice = replay.advice();
    if (json) {
      JsonOutput.write(results, out);
    } else {
      TableOutput.write(results, out);
      out.println();
      out.println(advice.map(Advice::recommendation).orElse("no events: no recommendation"));
    }
    if (chart != null) {
      Chart.write(
          results,
          chart,
          "late fraction against result delay, window " + DurationText.format(windowMillis));
    }
    return 0;
  }

  private List<Setting> settings() {
    requireNoEmptyDuration("--lateness");
    requireNoEmptyDuration("--idle");
    List<Long> lateness = latenessMillis == null ? List.of(120_000L) : latenessMillis;
    List<Long> idle = idleMillis == null ? List.of(120_000L) : idleMillis;
    if (windowMillis <= 0) {
      throw usage("--window must be > 0: " + windowMillis + "ms");
    }
    List<Setting> settings = new ArrayList<>();
    for (long i : idle) {
      if (i <= 0) {
        throw usage("--idle must be > 0: " + i + "ms");
      }
      for (long l : lateness) {
        settings.add(new Setting(l, i));
      }
    }
    return settings;
  }

  /**
   * Rejects a list option's value with an empty duration in it: picocli's split drops the empty
   * strings at the end of a value, so {@code ,} would be no duration at all and {@code 2m,} just
   * {@code 2m}, while the converter rejects {@code ,2m}.
   */
  private void requireNoEmptyDuration(String option) {
    for (String value : spec.findOption(option).originalStringValues()) {
      for (String duration : value.split(",", -1)) {
        if (duration.isBlank()) {
          throw usage(
              option + " must be durations separated by commas, none empty: \"" + value + "\"");
        }
      }
    }
  }

  private boolean format() {
    return switch (format) {
      case "json" -> true;
      case "table" -> false;
      default -> throw usage("--format must be table or json: " + format);
    };
  }

  private void kafkaOnly() {
    if (from != null
        || to != null
        || fromOffset != null
        || toOffset != null
        || consumerConfig != null) {
      throw usage("--from, --to, --from-offset, --to-offset and --consumer-config need --topic");
    }
  }

  private void readFile(Replay replay) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      CsvInput.read(in, replay);
    } catch (NoSuchFileException e) {
      throw usage("--file: no such file: " + file);
    }
  }

  private void readKafka(Replay replay) throws IOException {
    if ((from != null || to != null) && (fromOffset != null || toOffset != null)) {
      throw usage("a time range (--from/--to) does not combine with an offset range");
    }
    KafkaInput.Range range =
        new KafkaInput.Range(instant("--from", from), instant("--to", to), fromOffset, toOffset);
    Properties config = new Properties();
    if (consumerConfig != null) {
      try (InputStream in = Files.newInputStream(consumerConfig)) {
        config.load(in);
      } catch (NoSuchFileException e) {
        throw usage("--consumer-config: no such file: " + consumerConfig);
      }
    }
    Main.secrets(Secrets.of(config));
    // Read-only: no group, so nothing can be committed; the deserializers are ours.
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    config.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "lowwater-replay");
    Progress bar = new Progress(err, progress || System.console() != null, System::nanoTime);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      KafkaInput.read(consumer, topic, range, replay, bar);
    }
  }

  private Instant instant(String option, String text) {
    if (text == null) {
      return null;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw usage(
          option + ": not an ISO-8601 instant (like 2026-01-01T00:00:00Z): \"" + text + "\"");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}
