package io.github.lowwater.bench;

import io.github.lowwater.kafka.KafkaWindows;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;

/**
 * Hand-over time on a real broker (issue 33): how long a partition's new owner takes to give its
 * first row, against the resume distance, for {@link KafkaWindows} (tumbling, hopping and session
 * windows, without and with panes) and for Kafka Streams restoring the same aggregation from its
 * changelogs (in-memory store, no standby replica). Not JMH, not a test: a plain main that times
 * whole hand-overs.
 *
 * <h2>What it does</h2>
 *
 * <ol>
 *   <li>Starts an in-process KRaft broker ({@link InProcessBroker}) and writes one topic of one
 *       partition per span of {@code --spans} (minutes of event time; default 1, 15 and 60): {@code
 *       --rate} records per second of event time (default 100; evenly spaced, in order), {@code
 *       String} keys uniform over {@code --keys} (default 1,000), {@code long} values 1 to 100,
 *       from {@link #T0_MILLIS}. One partition: the hand-over of a partition is the unit measured;
 *       several moving at once add up on one consumer thread, or one stream thread, the same way.
 *   <li>Windows that hold the whole span until the trigger record closes them, so that the resume
 *       distance is the span: tumbling {@link #TUMBLING_SIZE}, hopping {@link #HOP_SIZE} every
 *       {@link #HOP_ADVANCE} (each record in 5 windows, every window that holds data ends after
 *       {@code T0 + HOP_ADVANCE}), sessions with a gap of {@link #SESSION_GAP} (a key's records are
 *       about {@code keys / rate} seconds apart, so each key has one session over the span); {@link
 *       #LATENESS} of allowed lateness (Kafka Streams: grace). With panes: {@code
 *       earlyResults(EARLY_PERIOD)} and {@code grace(GRACE)} on top.
 *   <li>The first owners, untimed: per span and variant a consumer in a group of its own ({@link
 *       HandOverLowwater#first}) or a Kafka Streams application ({@link HandOverStreams#first})
 *       reads the data, commits and closes. The Lowwater owner checks that its committed offset is
 *       the first record and prints {@code resumeDistance}: the span's records. The Kafka Streams
 *       instance requests a commit per 30 s of event time (as it would reading live) and its
 *       changelog records are counted.
 *   <li>Then one trigger record per topic (key {@value #TRIGGER_KEY}, value 0, a day after the
 *       data): it closes every window that holds data.
 *   <li>{@code --warmup} rounds (default 1) and {@code --rounds} (default 3), each a hand-over per
 *       span and variant, interleaved: once the group has no member, the clock starts, and a new
 *       owner is created that joins, is assigned the partition, gets its state back (Lowwater:
 *       re-reads from the committed offset; Kafka Streams: restores its changelogs into an empty
 *       state directory), reads the trigger record and gives its rows. The time to its first row,
 *       to its first on-time row (the first row of a window the trigger closed: with early results,
 *       the re-read gives early rows before it), and to its last row. The new owner commits nothing
 *       (Kafka Streams: an exception from its sink stops it before any commit), so that every round
 *       starts from the same commit and changelogs; this is checked before and after each
 *       hand-over.
 * </ol>
 *
 * <p>Checked in each hand-over: the on-time rows are one per (key, window) with data and sum to the
 * data's sum times the windows a record is in; the Lowwater owner read exactly the data and the
 * trigger before its first on-time row, none late or redelivered; Kafka Streams restored exactly
 * the changelog records the first instance left. A failed check prints {@code MISMATCH} and fails
 * the run after the summary.
 *
 * <h2>Command</h2>
 *
 * <pre>
 * flock /tmp/lowwater-build.lock mvn -B -q -f benchmarks package -DskipTests
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.HandOver | tee benchmarks/results/issue33-hand-over.txt
 * flock /tmp/lowwater-build.lock java -Xms2g -Xmx2g -cp benchmarks/target/benchmarks.jar \
 *     io.github.lowwater.bench.HandOver --rate 1000 --variants \
 *     lowwater-tumbling,lowwater-tumbling-panes,streams-tumbling,lowwater-hopping,\
 *     lowwater-hopping-panes,streams-hopping | tee benchmarks/results/issue33-hand-over-1000.txt
 * </pre>
 *
 * <p>The default rate is 100 records/s, not 1,000: Kafka Streams' session job processes about 1,400
 * records/s on this machine with 1,000 live sessions (its first instance took 261 s for the 360,000
 * records of the 60-minute span), so that instance would take about 45 minutes at 1,000/s. The
 * second command measures tumbling and hopping windows at 1,000/s (the {@code --variants} list is
 * one argument, without the line breaks).
 *
 * <p>Options: {@code --rate N} (100), {@code --keys N} (1,000), {@code --spans M,M} (1,15,60),
 * {@code --warmup N} (1), {@code --rounds N} (3), {@code --variants V,V} (all: {@code
 * lowwater-tumbling}, {@code lowwater-tumbling-panes}, {@code streams-tumbling}, the same for
 * {@code hopping} and {@code sessions}).
 */
public final class HandOver {

  static final Duration TUMBLING_SIZE = Duration.ofMinutes(75);
  static final Duration HOP_ADVANCE = Duration.ofMinutes(75);
  static final Duration HOP_SIZE = HOP_ADVANCE.multipliedBy(5);
  static final Duration SESSION_GAP = Duration.ofMinutes(5);
  static final Duration LATENESS = Duration.ofMinutes(2);
  static final Duration EARLY_PERIOD = Duration.ofMinutes(1);
  static final Duration GRACE = Duration.ofMinutes(1);

  /**
   * The data's first event time: {@link Feed#BASE_MILLIS} rounded up to {@link #HOP_ADVANCE}, so
   * that the data of every span starts a tumbling window and a hopping step (both windows and Kafka
   * Streams' align on the epoch).
   */
  static final long T0_MILLIS =
      Math.floorDiv(Feed.BASE_MILLIS, HOP_ADVANCE.toMillis()) * HOP_ADVANCE.toMillis()
          + HOP_ADVANCE.toMillis();

  /** The trigger record's event time after the data's start: every data window has closed. */
  static final long TRIGGER_AFTER_MILLIS = Duration.ofDays(1).toMillis();

  static final String TRIGGER_KEY = "~trigger";
  static final Duration POLL_TIMEOUT = Duration.ofMillis(100);

  /** How long one owner may take before the run fails. */
  static final Duration PASS_TIMEOUT = Duration.ofMinutes(5);

  enum Kind {
    TUMBLING,
    HOPPING,
    SESSIONS;

    int windowsPerRecord() {
      return this == HOPPING ? (int) (HOP_SIZE.toMillis() / HOP_ADVANCE.toMillis()) : 1;
    }
  }

  enum Engine {
    LOWWATER,
    LOWWATER_PANES,
    STREAMS
  }

  /** A kind of window on an engine; its name is the {@code --variants} name. */
  record Variant(Kind kind, Engine engine) {
    String name() {
      String kind = kind().name().toLowerCase(Locale.ROOT);
      return switch (engine) {
        case LOWWATER -> "lowwater-" + kind;
        case LOWWATER_PANES -> "lowwater-" + kind + "-panes";
        case STREAMS -> "streams-" + kind;
      };
    }
  }

  static final List<Variant> ALL_VARIANTS = allVariants();

  private static List<Variant> allVariants() {
    List<Variant> all = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      for (Engine engine : Engine.values()) {
        all.add(new Variant(kind, engine));
      }
    }
    return List.copyOf(all);
  }

  /** One span's data: its topic, its records, their sum, its distinct keys and sessions. */
  record Span(int minutes, String topic, long records, long sum, long keys, long sessions) {
    long expectedRows(Kind kind) {
      return kind == Kind.SESSIONS ? sessions : keys * kind.windowsPerRecord();
    }

    long expectedSum(Kind kind) {
      return sum * kind.windowsPerRecord();
    }

    /** The consumer group, or the Kafka Streams application id, of a variant on this span. */
    String group(Variant v) {
      return v.name() + "-" + minutes + "m";
    }
  }

  /**
   * What a first owner left: {@code distance} is the resume distance (Lowwater) or the changelog
   * records (Kafka Streams); {@code extra} the rows it gave (Lowwater, early rows with panes) or
   * the commits it requested (Kafka Streams).
   */
  record Prepared(
      Span span, Variant variant, long records, long nanos, long distance, long extra) {}

  /**
   * One timed hand-over, every time from the clock's start but {@code stateBackNanos}: Lowwater's
   * re-read (assignment to the first on-time row), Kafka Streams' restore (first store's start to
   * last store's end). {@code distance}: the records read again or restored. {@code rowsBefore}:
   * rows before the first on-time row (early rows given again by the re-read).
   */
  record Takeover(
      int round,
      Span span,
      Variant variant,
      long distance,
      long assignedNanos,
      long stateBackNanos,
      long firstRowNanos,
      long firstOnTimeNanos,
      long lastRowNanos,
      long rowsBefore,
      String check) {}

  /** The command-line options. */
  record Options(
      long rate, int keys, List<Integer> spans, int warmup, int rounds, List<Variant> variants) {
    static Options parse(String[] args) {
      long rate = 100; // Kafka Streams' session job reads about 1,400 records/s here: see the docs
      int keys = 1_000;
      List<Integer> spans = List.of(1, 15, 60);
      int warmup = 1;
      int rounds = 3;
      List<Variant> variants = ALL_VARIANTS;
      for (int a = 0; a < args.length; a++) {
        String name = args[a];
        if (a + 1 >= args.length) {
          throw new IllegalArgumentException(name + " needs a value");
        }
        String value = args[++a];
        switch (name) {
          case "--rate" -> rate = Long.parseLong(value.replace("_", "").replace(",", ""));
          case "--keys" -> keys = Integer.parseInt(value.replace("_", "").replace(",", ""));
          case "--spans" -> spans = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
          case "--warmup" -> warmup = Integer.parseInt(value);
          case "--rounds" -> rounds = Integer.parseInt(value);
          case "--variants" ->
              variants = Arrays.stream(value.split(",")).map(HandOver::variant).toList();
          default ->
              throw new IllegalArgumentException(
                  "unknown option "
                      + name
                      + " (--rate, --keys, --spans, --warmup, --rounds, --variants)");
        }
      }
      long longest = spans.stream().mapToLong(Integer::longValue).max().orElse(0);
      if (rate < 1 || keys < 1 || spans.isEmpty() || warmup < 0 || rounds < 1) {
        throw new IllegalArgumentException("need rate, keys, rounds >= 1 and warmup >= 0");
      }
      if (spans.stream().anyMatch(s -> s < 1)
          || Duration.ofMinutes(longest).plus(LATENESS).compareTo(HOP_ADVANCE) >= 0) {
        throw new IllegalArgumentException(
            "--spans must be >= 1 and below "
                + HOP_ADVANCE.minus(LATENESS).toMinutes()
                + " minutes, or a window would close before the trigger: "
                + spans);
      }
      return new Options(rate, keys, spans, warmup, rounds, variants);
    }
  }

  static Variant variant(String name) {
    return ALL_VARIANTS.stream()
        .filter(v -> v.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "--variants must name some of "
                        + ALL_VARIANTS.stream().map(Variant::name).toList()
                        + ": "
                        + name));
  }

  private HandOver() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    long begin = System.nanoTime();
    System.out.printf(
        Locale.ROOT,
        "HandOver: %,d records/s of event time, %,d keys, spans %s min, one partition, %d warm-up"
            + " + %d rounds of %s; %s %s, heap max %,d MB, %s%n",
        o.rate(),
        o.keys(),
        o.spans(),
        o.warmup(),
        o.rounds(),
        o.variants().stream().map(Variant::name).toList(),
        System.getProperty("java.vm.name"),
        Runtime.version(),
        Runtime.getRuntime().maxMemory() >> 20,
        ManagementFactory.getRuntimeMXBean().getInputArguments());
    System.out.printf(
        Locale.ROOT,
        "Windows: tumbling %d min, hopping %d min every %d min, sessions gap %d min; lateness"
            + " (Kafka Streams: grace) %d min; panes: earlyResults(%d min), grace(%d min)%n%s%n%n",
        TUMBLING_SIZE.toMinutes(),
        HOP_SIZE.toMinutes(),
        HOP_ADVANCE.toMinutes(),
        SESSION_GAP.toMinutes(),
        LATENESS.toMinutes(),
        EARLY_PERIOD.toMinutes(),
        GRACE.toMinutes(),
        HandOverStreams.settings());
    List<Takeover> takeovers = new ArrayList<>();
    List<Takeover> all = new ArrayList<>();
    Map<String, Prepared> prepared = new LinkedHashMap<>();
    try (InProcessBroker broker = InProcessBroker.start();
        ConsumerGroups groups = new ConsumerGroups(broker)) {
      List<Span> spans = new ArrayList<>();
      for (int minutes : o.spans()) {
        spans.add(HandOverData.produce(broker, minutes, o));
      }
      System.out.println();
      System.out.println(
          "| first owner | records read | seconds | resume distance (Lowwater) or changelog records"
              + " (Kafka Streams) | rows (Lowwater) or commits (Kafka Streams) | handed over |");
      System.out.println("| --- | ---: | ---: | ---: | ---: | --- |");
      Map<String, String> handedOver = new TreeMap<>();
      for (Span span : spans) {
        for (Variant v : o.variants()) {
          Prepared p =
              v.engine() == Engine.STREAMS
                  ? HandOverStreams.first(broker, span, v)
                  : HandOverLowwater.first(broker.bootstrapServers(), span, v);
          groups.awaitEmpty(span.group(v), Duration.ofMinutes(1));
          if (v.engine() == Engine.STREAMS) {
            long changelog =
                groups.changelogEnds(span.group(v)).values().stream().mapToLong(x -> x).sum();
            p = new Prepared(span, v, p.records(), p.nanos(), changelog, p.extra());
          }
          String state = handedOver(groups, span, v);
          handedOver.put(span.group(v), state);
          prepared.put(span.group(v), p);
          System.out.printf(
              Locale.ROOT,
              "| %s | %,d | %.2f | %,d | %,d | %s |%n",
              span.group(v),
              p.records(),
              p.nanos() / 1e9,
              p.distance(),
              p.extra(),
              state);
        }
      }
      for (Span span : spans) {
        HandOverData.trigger(broker, span);
      }
      System.out.println();
      HandOverReport.header();
      for (int round = 1 - o.warmup(); round <= o.rounds(); round++) {
        for (Span span : spans) {
          for (Variant v : o.variants()) {
            String group = span.group(v);
            requireSame(group, handedOver.get(group), handedOver(groups, span, v), "before");
            groups.awaitEmpty(group, Duration.ofMinutes(1));
            Takeover t =
                v.engine() == Engine.STREAMS
                    ? HandOverStreams.takeover(
                        broker, span, v, round, prepared.get(group).distance())
                    : HandOverLowwater.takeover(broker.bootstrapServers(), span, v, round);
            groups.awaitEmpty(group, Duration.ofMinutes(1));
            requireSame(group, handedOver.get(group), handedOver(groups, span, v), "after");
            HandOverReport.row(t);
            all.add(t);
            if (round > 0) {
              takeovers.add(t);
            }
          }
        }
      }
    }
    HandOverReport.summarize(takeovers, prepared, o);
    System.out.printf(
        Locale.ROOT,
        "%nTotal: %.1f s, broker start, production and first owners included.%n",
        (System.nanoTime() - begin) / 1e9);
    HandOverReport.failOnMismatch(all);
  }

  /**
   * What a new owner starts from: the committed offset and its metadata, and, for Kafka Streams,
   * the end offsets of the changelogs. The same before and after every hand-over, or the run fails.
   */
  static String handedOver(ConsumerGroups groups, Span span, Variant v) throws Exception {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<?, OffsetAndMetadata> e : groups.committed(span.group(v)).entrySet()) {
      s.append(e.getKey())
          .append(" at ")
          .append(e.getValue().offset())
          .append(" \"")
          .append(e.getValue().metadata())
          .append('"');
    }
    if (v.engine() == Engine.STREAMS) {
      s.append("; changelogs ").append(new TreeMap<>(groups.changelogEnds(span.group(v))));
    }
    return s.toString();
  }

  private static void requireSame(String group, String expected, String actual, String when) {
    if (!expected.equals(actual)) {
      throw new IllegalStateException(
          group + ": the committed state changed (" + when + " a hand-over): " + actual);
    }
  }
}
