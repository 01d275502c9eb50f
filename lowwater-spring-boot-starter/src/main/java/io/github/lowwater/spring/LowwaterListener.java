package io.github.lowwater.spring;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.RecordMapper;
import io.github.lowwater.kafka.ResultSink;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;

/**
 * What a Spring application declares to run Lowwater under Spring for Apache Kafka: the topics, the
 * group, the windows, the mapper and where the rows go. Declare one as a bean and the starter's
 * auto-configuration runs it: {@code concurrency} consumers, each in a listener container whose
 * every commit path is closed, each feeding its own {@link KafkaWindows} exactly as the README's
 * loop does (docs/spring.md).
 *
 * <pre>{@code
 * @Bean
 * LowwaterListener<String, String, String, Long, Long> arrivals(JdbcTemplate jdbc) {
 *   return LowwaterListener.<String, String, String, Long, Long>builder("arrival_predictions")
 *       .groupId("arrivals-5m")
 *       .windows(() -> KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
 *           .allowedLateness(Duration.ofMinutes(2)))
 *       .mapper(ConsumerRecord::key, r -> 1L)
 *       .rowWriter(rows -> write(jdbc, rows)) // upsert complete rows; insert others if absent
 *       .concurrency(3)
 *       .build();
 * }
 * }</pre>
 *
 * <p>Immutable once built; the builder is not thread-safe.
 *
 * @param <KR> the record key type
 * @param <VR> the record value type
 * @param <K> the window key type
 * @param <V> the aggregated value type
 * @param <R> the result type
 */
public final class LowwaterListener<KR, VR, K, V, R> {

  private static final Logger LOG = LoggerFactory.getLogger(LowwaterListener.class);

  private final String name;
  private final List<String> topics;
  private final String groupId;
  private final Supplier<KafkaWindows.Builder<V, R>> windows;
  private final RecordMapper<KR, VR, K, V> mapper;
  private final DeadLetterHandler<KR, VR> deadLetter;
  private final Function<SinkContext<KR, VR, K, V, R>, ResultSink<K, R>> sink;
  private final TransactionalOutput<K, R> transactional;
  private final int concurrency;
  private final Duration idleTick;
  private final Duration errorBackOff;
  private final Map<String, Object> consumerProperties;
  private final Supplier<Deserializer<KR>> keyDeserializer;
  private final Supplier<Deserializer<VR>> valueDeserializer;
  private final java.util.function.Consumer<KafkaMessageListenerContainer<KR, VR>> customizer;

  private LowwaterListener(Builder<KR, VR, K, V, R> b) {
    this.name = b.name != null ? b.name : b.groupId;
    this.topics = b.topics;
    this.groupId = b.groupId;
    this.windows = b.windows;
    this.mapper = b.mapper;
    this.deadLetter = b.deadLetter;
    this.sink = b.sink;
    this.transactional = b.transactional;
    this.concurrency = b.concurrency;
    this.idleTick = b.idleTick;
    this.errorBackOff = b.errorBackOff;
    this.consumerProperties = Map.copyOf(b.consumerProperties);
    this.keyDeserializer = b.keyDeserializer;
    this.valueDeserializer = b.valueDeserializer;
    this.customizer = b.customizer;
  }

  /**
   * Starts a listener of {@code topics}.
   *
   * @param topics the topics the consumers subscribe to, at least one
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @param <K> the window key type
   * @param <V> the aggregated value type
   * @param <R> the result type
   * @return a new builder
   * @throws IllegalArgumentException if no topic is given, or one is blank
   */
  public static <KR, VR, K, V, R> Builder<KR, VR, K, V, R> builder(String... topics) {
    return new Builder<>(topics);
  }

  /**
   * The name of the listener: the prefix of its containers' bean names and client ids, and the tag
   * {@code lowwater.listener} of its meters.
   *
   * @return the name given, or the group id
   */
  public String name() {
    return name;
  }

  /**
   * The topics.
   *
   * @return the topics, unmodifiable
   */
  public List<String> topics() {
    return topics;
  }

  /**
   * The consumer group.
   *
   * @return the group id
   */
  public String groupId() {
    return groupId;
  }

  /**
   * How many consumers, each on its own thread and with its own windows.
   *
   * @return at least 1
   */
  public int concurrency() {
    return concurrency;
  }

  /**
   * How often the containers tick while no records arrive, driving the quiet-period rule.
   *
   * @return the tick
   */
  public Duration idleTick() {
    return idleTick;
  }

  /**
   * How long a consumer waits after a failed poll (a failed write or commit, a mapper's or an
   * aggregator's exception) before it polls again.
   *
   * @return the back-off
   */
  public Duration errorBackOff() {
    return errorBackOff;
  }

  /**
   * Consumer settings on top of the host's (Spring Boot's {@code spring.kafka.consumer.*}).
   *
   * @return the settings, unmodifiable
   */
  public Map<String, Object> consumerProperties() {
    return consumerProperties;
  }

  /**
   * Whether the rows go to a topic in Kafka transactions ({@link Builder#transactionalSink(String,
   * Serializer, Serializer, String)}).
   *
   * @return true for a transactional sink
   */
  public boolean transactional() {
    return transactional != null;
  }

  Supplier<Deserializer<KR>> keyDeserializer() {
    return keyDeserializer;
  }

  Supplier<Deserializer<VR>> valueDeserializer() {
    return valueDeserializer;
  }

  java.util.function.Consumer<KafkaMessageListenerContainer<KR, VR>> customizer() {
    return customizer;
  }

  /** New windows for a consumer, built from the user's builder. */
  KafkaWindows<K, V, R> newWindows(org.apache.kafka.clients.consumer.Consumer<?, ?> consumer) {
    KafkaWindows.Builder<V, R> b = Objects.requireNonNull(windows.get(), "the windows supplier");
    return b.consumer(consumer).build();
  }

  /**
   * The mapper that feeds the windows: the user's, with a poison record handed to the dead-letter
   * handler and skipped.
   */
  RecordMapper<KR, VR, K, V> mapper() {
    return (record, out) -> {
      try {
        mapper.map(record, out);
      } catch (RuntimeException e) {
        try {
          deadLetter.accept(record, e);
        } catch (RuntimeException rethrown) {
          throw rethrown;
        } catch (Exception checked) {
          throw new IllegalStateException("the dead-letter handler failed", checked);
        }
        // skipped: out not called, so the windows count it in skippedRecords()
      }
    };
  }

  /** The sink of one member. */
  ResultSink<K, R> newSink(SinkContext<KR, VR, K, V, R> context, Map<String, Object> producer) {
    if (transactional != null) {
      return transactional.sink(context, producer);
    }
    return Objects.requireNonNull(sink.apply(context), "the sink factory returned null");
  }

  /**
   * Configures a {@link LowwaterListener}. Required: {@link #groupId}, {@link #windows}, a mapper,
   * and exactly one of {@link #rowWriter}, {@link #sink} and {@link #transactionalSink}.
   *
   * @param <KR> the record key type
   * @param <VR> the record value type
   * @param <K> the window key type
   * @param <V> the aggregated value type
   * @param <R> the result type
   */
  public static final class Builder<KR, VR, K, V, R> {
    private final List<String> topics;
    private String name;
    private String groupId;
    private Supplier<KafkaWindows.Builder<V, R>> windows;
    private RecordMapper<KR, VR, K, V> mapper;
    private DeadLetterHandler<KR, VR> deadLetter =
        (record, failure) ->
            LOG.error(
                "{}-{}@{}: the mapper failed on this record; it is skipped (counted in"
                    + " skippedRecords()). Set deadLetter(...) to keep it",
                record.topic(),
                record.partition(),
                record.offset(),
                failure);
    private Function<SinkContext<KR, VR, K, V, R>, ResultSink<K, R>> sink;
    private TransactionalOutput<K, R> transactional;
    private int concurrency = 1;
    private Duration idleTick = Duration.ofSeconds(5);
    private Duration errorBackOff = Duration.ofSeconds(1);
    private final Map<String, Object> consumerProperties = new HashMap<>();
    private Supplier<Deserializer<KR>> keyDeserializer;
    private Supplier<Deserializer<VR>> valueDeserializer;
    private java.util.function.Consumer<KafkaMessageListenerContainer<KR, VR>> customizer =
        container -> {};

    private Builder(String... topics) {
      if (topics == null || topics.length == 0) {
        throw new IllegalArgumentException("topics must name at least one topic, was none");
      }
      for (String t : topics) {
        if (t == null || t.isBlank()) {
          throw new IllegalArgumentException("a topic must not be blank, was '" + t + "'");
        }
      }
      this.topics = List.of(topics);
    }

    /**
     * The consumer group of every consumer of this listener.
     *
     * @param groupId the group id
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> groupId(String groupId) {
      if (groupId == null || groupId.isBlank()) {
        throw new IllegalArgumentException("groupId must not be blank, was '" + groupId + "'");
      }
      this.groupId = groupId;
      return this;
    }

    /**
     * The listener's name (default: the group id): its containers' bean names, client ids and
     * meters' tag.
     *
     * @param name the name
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> name(String name) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
      }
      this.name = name;
      return this;
    }

    /**
     * The windows: a new {@code KafkaWindows.Builder} for each consumer, with every option but the
     * consumer, which the starter sets ({@code .consumer(consumer)}). Called once per consumer the
     * container creates.
     *
     * @param windows supplies a configured builder, such as {@code () -> KafkaWindows.builder(size,
     *     aggregator).allowedLateness(lateness)}
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> windows(Supplier<KafkaWindows.Builder<V, R>> windows) {
      this.windows = Objects.requireNonNull(windows, "windows");
      return this;
    }

    /**
     * Maps each record to its event time, key and value.
     *
     * @param mapper the mapper
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> mapper(RecordMapper<KR, VR, K, V> mapper) {
      this.mapper = Objects.requireNonNull(mapper, "mapper");
      return this;
    }

    /**
     * Maps each record to a key and a value, its event time being the record's timestamp; a {@code
     * null} key or value skips the record.
     *
     * @param key the window key of a record
     * @param value the value of a record
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> mapper(
        Function<? super ConsumerRecord<KR, VR>, ? extends K> key,
        Function<? super ConsumerRecord<KR, VR>, ? extends V> value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      return mapper(
          (record, out) -> {
            K k = key.apply(record);
            V v = k == null ? null : value.apply(record);
            if (v != null) {
              out.emit(record.timestamp(), k, v);
            }
          });
    }

    /**
     * Where a record the mapper throws on goes (default: an ERROR log line naming it; the record is
     * skipped either way). See {@link DeadLetterHandler}.
     *
     * @param handler the handler
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> deadLetter(DeadLetterHandler<KR, VR> handler) {
      this.deadLetter = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * The rows go to {@code writer}, then the consumer commits its offsets with their checkpoints
     * ({@code commitSync}): the README's loop.
     *
     * @param writer writes rows idempotently, never an incomplete row over a complete one ({@link
     *     RowWriter})
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> rowWriter(RowWriter<K, R> writer) {
      Objects.requireNonNull(writer, "writer");
      return sink(context -> new WriteThenCommitSync<>(writer, context.consumer()));
    }

    /**
     * The rows go to a {@link ResultSink} of the application's, one per consumer; its {@code
     * commit} must commit through {@link SinkContext#consumer()} (or in a transaction).
     *
     * @param sink creates the sink of one consumer
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> sink(
        Function<SinkContext<KR, VR, K, V, R>, ResultSink<K, R>> sink) {
      if (this.sink != null || transactional != null) {
        throw new IllegalStateException(
            "a sink is already set: rowWriter, sink and" + " transactionalSink are exclusive");
      }
      this.sink = Objects.requireNonNull(sink, "sink");
      return this;
    }

    /**
     * The rows go to {@code topic} exactly once, through a {@code TransactionalSink} per consumer,
     * each with its own producer and {@code transactional.id} {@code <prefix>-<listener name>-<n>},
     * n the consumer's index. The producer takes the host's producer settings (Spring Boot's {@code
     * spring.kafka.producer.*}: servers, security); the consumers must read {@code read_committed},
     * or the start is refused.
     *
     * @param topic the output topic
     * @param keySerializer serializes the window key
     * @param valueSerializer serializes the result
     * @param transactionalIdPrefix unique to this application instance and stable across its
     *     restarts (a pod's name in a StatefulSet): two instances with one prefix fence each other
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> transactionalSink(
        String topic,
        Serializer<K> keySerializer,
        Serializer<R> valueSerializer,
        String transactionalIdPrefix) {
      if (this.sink != null || transactional != null) {
        throw new IllegalStateException(
            "a sink is already set: rowWriter, sink and" + " transactionalSink are exclusive");
      }
      this.transactional =
          new TransactionalOutput<>(topic, keySerializer, valueSerializer, transactionalIdPrefix);
      return this;
    }

    /**
     * How many consumers run this listener in this application (default 1), each on its own thread
     * with its own windows. {@code MERGED} windows need 1.
     *
     * @param concurrency at least 1
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> concurrency(int concurrency) {
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
      }
      this.concurrency = concurrency;
      return this;
    }

    /**
     * How often a container with no records ticks (default 5 s): each tick is an empty poll for the
     * windows, which runs the quiet-period rule and idleness, then writes and commits. The
     * quiet-period rule closes the last window at most this much later than the plain loop would.
     *
     * @param tick at least 1 ms
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> idleTick(Duration tick) {
      if (tick == null || tick.toMillis() < 1) {
        throw new IllegalArgumentException("idleTick must be at least 1 ms, was " + tick);
      }
      this.idleTick = tick;
      return this;
    }

    /**
     * How long a consumer waits after a failed poll before it polls again (default 1 s). Keep it
     * well below {@code max.poll.interval.ms}.
     *
     * @param backOff zero or more
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> errorBackOff(Duration backOff) {
      if (backOff == null || backOff.isNegative()) {
        throw new IllegalArgumentException("errorBackOff must be zero or more, was " + backOff);
      }
      this.errorBackOff = backOff;
      return this;
    }

    /**
     * A consumer setting on top of the host's, such as {@code max.poll.records}.
     *
     * @param key the setting
     * @param value its value
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> consumerProperty(String key, Object value) {
      consumerProperties.put(
          Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Deserializers for this listener's consumers (default: the host's, Spring Boot's {@code
     * spring.kafka.consumer.key-deserializer} and {@code value-deserializer}), a new pair for each
     * consumer: a consumer closes its own. Spring Boot's {@code
     * DefaultKafkaConsumerFactoryCustomizer} beans do not apply to the factory these make.
     *
     * @param keys supplies a key deserializer, such as {@code StringDeserializer::new}
     * @param values supplies a value deserializer
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> deserializers(
        Supplier<Deserializer<KR>> keys, Supplier<Deserializer<VR>> values) {
      this.keyDeserializer = Objects.requireNonNull(keys, "keys");
      this.valueDeserializer = Objects.requireNonNull(values, "values");
      return this;
    }

    /**
     * Adjusts each container before it starts: its client id prefix, its micrometer observation,
     * its auto-startup. The settings that keep the commits Lowwater's are checked after, and the
     * start is refused if one was changed (docs/spring.md, "What the starter closes").
     *
     * @param customizer adjusts a container
     * @return this builder
     */
    public Builder<KR, VR, K, V, R> containerCustomizer(
        java.util.function.Consumer<KafkaMessageListenerContainer<KR, VR>> customizer) {
      this.customizer = Objects.requireNonNull(customizer, "customizer");
      return this;
    }

    /**
     * Builds the listener.
     *
     * @return the listener
     * @throws IllegalStateException if the group, the windows, the mapper or the sink is missing
     */
    public LowwaterListener<KR, VR, K, V, R> build() {
      require(groupId != null, "groupId");
      require(windows != null, "windows");
      require(mapper != null, "mapper");
      require(sink != null || transactional != null, "rowWriter, sink or transactionalSink");
      return new LowwaterListener<>(this);
    }

    private static void require(boolean set, String what) {
      if (!set) {
        throw new IllegalStateException("a LowwaterListener needs " + what + ", which is not set");
      }
    }
  }
}
