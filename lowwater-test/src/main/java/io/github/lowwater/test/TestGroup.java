package io.github.lowwater.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Several consumers in one group, driven from the test's thread: members join, poll in turn, leave
 * with a plain close, crash without a leave, and new members join in their place, starting from the
 * group's committed offsets as a restarted process would. No thread of its own: every call runs on
 * the caller's thread, which must be the only one to use the members' consumers.
 *
 * <p>Each member has a <i>participant</i>, the object under test that the member's consumer feeds
 * (a {@code KafkaWindows}, typically), and the participant's rebalance listener. A crash detaches
 * that listener first: a killed process runs no callback.
 *
 * <pre>{@code
 * TestGroup<String, String, KafkaWindows<String, Long, Long>> group = new TestGroup<>(
 *     GroupClients.consumer(broker.bootstrapServers(), "g", GroupProtocol.CLASSIC),
 *     new StringDeserializer(), new StringDeserializer(), List.of("in"),
 *     consumer -> windowsBuilder().consumer(consumer).build(), KafkaWindows::rebalanceListener);
 * var a = group.join();
 * var b = group.join();
 * group.awaitStable(Duration.ofSeconds(30), loop);   // loop: (member, records) -> onPoll, write, commit
 * group.crash(b);                                    // no leave, no commit, no callback
 * group.awaitStable(Duration.ofSeconds(30), loop);   // a holds every partition, from b's commits
 * var c = group.join();                              // a restart: from the committed offsets
 * }</pre>
 *
 * <p>Not thread-safe.
 *
 * @param <K> the record key type
 * @param <V> the record value type
 * @param <P> the participants' type
 */
public final class TestGroup<K, V, P> implements AutoCloseable {

  /** How long one member's poll waits for records before the next member's turn. */
  public static final Duration POLL = Duration.ofMillis(50);

  private final Map<String, Object> config;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final List<String> topics;
  private final GroupProtocol protocol;
  private final Function<? super Consumer<K, V>, ? extends P> participant;
  private final Function<? super P, ? extends ConsumerRebalanceListener> listener;
  private final List<Member<K, V, P>> members = new ArrayList<>();
  private int joined;

  /**
   * A group of no members yet.
   *
   * @param consumerConfig every member's consumer settings, with {@code group.id} ({@link
   *     GroupClients#consumer} gives them); {@code group.protocol} chooses how {@link #crash} works
   * @param keys the key deserializer, shared by the members
   * @param values the value deserializer, shared by the members
   * @param topics the topics every member subscribes to
   * @param participant creates the object under test for a member's consumer
   * @param listener the participant's rebalance listener
   * @throws IllegalArgumentException if {@code group.id} is missing or {@code topics} is empty
   */
  public TestGroup(
      Map<String, Object> consumerConfig,
      Deserializer<K> keys,
      Deserializer<V> values,
      Collection<String> topics,
      Function<? super Consumer<K, V>, ? extends P> participant,
      Function<? super P, ? extends ConsumerRebalanceListener> listener) {
    this.config = new HashMap<>(Objects.requireNonNull(consumerConfig, "consumerConfig"));
    this.keys = Objects.requireNonNull(keys, "keys");
    this.values = Objects.requireNonNull(values, "values");
    this.topics = List.copyOf(topics);
    this.participant = Objects.requireNonNull(participant, "participant");
    this.listener = Objects.requireNonNull(listener, "listener");
    if (!(config.get(ConsumerConfig.GROUP_ID_CONFIG) instanceof String)) {
      throw new IllegalArgumentException(
          "consumerConfig must set group.id, was " + config.get(ConsumerConfig.GROUP_ID_CONFIG));
    }
    if (this.topics.isEmpty()) {
      throw new IllegalArgumentException("topics must name at least one topic, was empty");
    }
    Object p = config.getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    this.protocol = GroupProtocol.of(p.toString());
  }

  /**
   * Starts a member: a new consumer in the group, its participant, subscribed with the
   * participant's listener. Its partitions arrive in its next polls ({@link #awaitStable}). A
   * member that joins after another crashed or left starts from the group's committed offsets.
   *
   * @return the member
   */
  public Member<K, V, P> join() {
    String name = config.get(ConsumerConfig.GROUP_ID_CONFIG) + "-member-" + ++joined;
    Map<String, Object> own = new HashMap<>(config);
    own.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, name);
    KafkaConsumer<K, V> consumer = new KafkaConsumer<>(own, keys, values);
    try {
      P p = participant.apply(consumer);
      Member<K, V, P> member = new Member<>(name, consumer, p, listener.apply(p));
      consumer.subscribe(topics, member.listener);
      members.add(member);
      return member;
    } catch (RuntimeException e) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      throw e;
    }
  }

  /**
   * The members that poll: joined, and neither left nor crashed.
   *
   * @return them, in the order they joined
   */
  public List<Member<K, V, P>> live() {
    List<Member<K, V, P>> live = new ArrayList<>();
    for (Member<K, V, P> m : members) {
      if (m.state == State.LIVE) {
        live.add(m);
      }
    }
    return live;
  }

  /**
   * Returns whether the live members, between them, own every partition of the group's topics once
   * and have read each to the offset {@code ends} gives it (a partition it does not name: to 0):
   * the condition to {@link #pollUntil} after producing a bounded input.
   *
   * @param ends the end offset of each partition, as the producer's {@code RecordMetadata} gave it
   *     (the last offset plus one)
   * @return {@code true} once every record up to the ends has been returned by a poll
   */
  public boolean hasRead(Map<TopicPartition, Long> ends) {
    Set<TopicPartition> all = partitions();
    int owned = 0;
    for (Member<K, V, P> m : live()) {
      for (TopicPartition tp : m.consumer.assignment()) {
        owned++;
        if (m.consumer.position(tp) < ends.getOrDefault(tp, 0L)) {
          return false;
        }
      }
    }
    return owned == all.size();
  }

  /**
   * Polls every live member once, in the order they joined, and hands each poll's records to {@code
   * onPoll}, empty polls included (Lowwater's quiet-period rule needs them).
   *
   * @param onPoll what a member does with a poll: {@code onPoll}, write, commit
   */
  public void pollOnce(BiConsumer<? super Member<K, V, P>, ConsumerRecords<K, V>> onPoll) {
    for (Member<K, V, P> m : live()) {
      onPoll.accept(m, m.consumer.poll(POLL));
    }
  }

  /**
   * Polls the live members in turn until {@code done} holds.
   *
   * @param done checked before each round
   * @param deadline how long to try
   * @param onPoll what a member does with a poll
   * @throws AssertionError if {@code done} does not hold by the deadline
   */
  public void pollUntil(
      BooleanSupplier done,
      Duration deadline,
      BiConsumer<? super Member<K, V, P>, ConsumerRecords<K, V>> onPoll) {
    long stop = System.nanoTime() + deadline.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - stop > 0) {
        throw new AssertionError("not done within " + deadline + ": " + describe());
      }
      pollOnce(onPoll);
    }
  }

  /**
   * Polls the live members until the group is stable: their assignments split every partition of
   * the topics between them, each live member holds at least one partition when there are enough,
   * and each member's rebalance callbacks have caught up with its consumer's assignment (a KIP-848
   * consumer of kafka-clients 4.1 shows new partitions in {@code assignment()} one poll before it
   * runs {@code onPartitionsAssigned}).
   *
   * @param deadline how long to try; a crashed member's partitions move after {@link
   *     GroupClients#SESSION_TIMEOUT_MS}
   * @param onPoll what a member does with a poll
   * @throws AssertionError if the group is not stable by the deadline
   */
  public void awaitStable(
      Duration deadline, BiConsumer<? super Member<K, V, P>, ConsumerRecords<K, V>> onPoll) {
    Set<TopicPartition> all = partitions();
    pollUntil(() -> isStable(all), deadline, onPoll);
  }

  private boolean isStable(Set<TopicPartition> all) {
    List<Member<K, V, P>> live = live();
    Set<TopicPartition> union = new HashSet<>();
    int total = 0;
    for (Member<K, V, P> m : live) {
      Set<TopicPartition> assigned = m.consumer.assignment();
      if (!assigned.equals(m.listener.held) || (assigned.isEmpty() && all.size() >= live.size())) {
        return false;
      }
      union.addAll(assigned);
      total += assigned.size();
    }
    return union.equals(all) && total == all.size();
  }

  /** Every partition of the group's topics. */
  private Set<TopicPartition> partitions() {
    Set<TopicPartition> all = new HashSet<>();
    Member<K, V, P> any = live().stream().findFirst().orElse(null);
    if (any == null) {
      throw new IllegalStateException("no live member: join one first");
    }
    for (String topic : topics) {
      for (PartitionInfo info : any.consumer.partitionsFor(topic)) {
        all.add(new TopicPartition(topic, info.partition()));
      }
    }
    return all;
  }

  /**
   * A deploy's stop: a plain {@code close()}, which runs the participant's revocation and sends the
   * leave; its partitions move at the next rebalance.
   *
   * @param member a live member
   * @throws IllegalStateException if it is not live
   */
  public void leave(Member<K, V, P> member) {
    member.requireLive();
    member.state = State.LEFT;
    member.consumer.close();
  }

  /**
   * A killed process, as near as one JVM gets: the member's listener is detached (no callback
   * runs), nothing is committed, and it stops polling. Under the classic protocol its consumer is
   * closed without a leave ({@code REMAIN_IN_GROUP}, no wait): its heartbeats stop and its
   * partitions move after the session timeout. Under KIP-848 a dynamic member still sends its leave
   * on that close (kafka-clients 4.4.0), so the member is frozen instead: never polled again, its
   * consumer left open until {@link #close()}; the broker takes it out of the group after {@code
   * max.poll.interval.ms}. Either way its partitions move within {@link
   * GroupClients#SESSION_TIMEOUT_MS} (with {@link GroupClients}' settings); discard what the
   * participant did after its last commit.
   *
   * @param member a live member
   * @throws IllegalStateException if it is not live
   */
  public void crash(Member<K, V, P> member) {
    member.requireLive();
    member.state = State.CRASHED;
    member.listener.detached = true;
    if (protocol == GroupProtocol.CLASSIC) {
      closeRemaining(member);
    }
  }

  private static void closeRemaining(Member<?, ?, ?> member) {
    member.consumer.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
            .withTimeout(Duration.ZERO));
  }

  /** Closes every member still open: live ones with a plain close, frozen ones without a leave. */
  @Override
  public void close() {
    for (Member<K, V, P> m : members) {
      if (m.state == State.LIVE) {
        m.state = State.LEFT;
        m.consumer.close();
      } else if (m.state == State.CRASHED && protocol != GroupProtocol.CLASSIC) {
        m.state = State.CLOSED_AFTER_CRASH;
        closeRemaining(m);
      }
    }
  }

  private String describe() {
    StringBuilder s = new StringBuilder();
    for (Member<K, V, P> m : members) {
      s.append(m.name).append(' ').append(m.state);
      if (m.state == State.LIVE) {
        s.append(" assigned ").append(m.consumer.assignment());
        s.append(" held ").append(m.listener.held);
      }
      s.append("; ");
    }
    return s.toString();
  }

  /** Where a member is in its life. */
  public enum State {
    /** Polled by the group. */
    LIVE,
    /** Closed with a plain close. */
    LEFT,
    /** Crashed: no longer polled, no callback runs. */
    CRASHED,
    /** Crashed, then its frozen consumer closed by {@link TestGroup#close()}. */
    CLOSED_AFTER_CRASH
  }

  /**
   * One member: its consumer and its participant.
   *
   * @param <K> the record key type
   * @param <V> the record value type
   * @param <P> the participant's type
   */
  public static final class Member<K, V, P> {
    private final String name;
    private final KafkaConsumer<K, V> consumer;
    private final P participant;
    private final Listener listener;
    private State state = State.LIVE;

    private Member(
        String name, KafkaConsumer<K, V> consumer, P participant, ConsumerRebalanceListener l) {
      this.name = name;
      this.consumer = consumer;
      this.participant = participant;
      this.listener = new Listener(Objects.requireNonNull(l, "the participant's listener"));
    }

    /**
     * Its name, also its consumer's {@code client.id} unless the settings give one.
     *
     * @return {@code <group>-member-<n>}
     */
    public String name() {
      return name;
    }

    /**
     * Its consumer; use it only on the group's thread, and do not close it.
     *
     * @return the consumer
     */
    public Consumer<K, V> consumer() {
      return consumer;
    }

    /**
     * The object under test this member feeds.
     *
     * @return the participant
     */
    public P participant() {
      return participant;
    }

    /**
     * Where it is in its life.
     *
     * @return its state
     */
    public State state() {
      return state;
    }

    private void requireLive() {
      if (state != State.LIVE) {
        throw new IllegalStateException(name + " is " + state + ", not LIVE");
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** Forwards to the participant's listener until detached, and keeps what the callbacks said. */
  private static final class Listener implements ConsumerRebalanceListener {
    private final ConsumerRebalanceListener delegate;
    private final Set<TopicPartition> held = new HashSet<>();
    private boolean detached;

    Listener(ConsumerRebalanceListener delegate) {
      this.delegate = delegate;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      held.removeAll(partitions);
      if (!detached) {
        delegate.onPartitionsRevoked(partitions);
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      held.addAll(partitions);
      if (!detached) {
        delegate.onPartitionsAssigned(partitions);
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      held.removeAll(partitions);
      if (!detached) {
        delegate.onPartitionsLost(partitions);
      }
    }
  }
}
