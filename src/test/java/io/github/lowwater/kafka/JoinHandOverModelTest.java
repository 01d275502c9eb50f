package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.join.JoinInterval;
import io.github.lowwater.join.JoinRow;
import io.github.lowwater.join.JoinSide;
import io.github.lowwater.join.JoinType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The hand-over model of {@link KafkaJoin}: random feeds of two co-partitioned topics, read by a
 * group whose instances take tasks from one another through revocations, crashes before and after a
 * write, failed commits, failed writes with a rewind, and tasks split across two instances and
 * reunited, and time passing on a manual clock while partitions are silent, so that quiet-period
 * advances raise their own watermarks (rule 74). The sink, keyed by the rows' identities, must end
 * equal to the rows of one uninterrupted reading computed from the definitions (rules 67 to 69 with
 * the per-source verdict) in which each partition's watermark is raised at the offsets where the
 * commits say a raise was taken, every write must be a row of that reading, a row must never be
 * written again once a commit covered it, and the late records reported must be that reading's.
 *
 * <p>A raise after an owner's last commit is not carried (rule 74, as rule 61 for windows): an
 * owner that dies, rewinds or loses a task between a raise and its next commit leaves rows and late
 * reports the next reader may not repeat. The model keeps to the documented promise: an owner with
 * a raise no commit carried yet commits before such a fault (counted as {@code
 * carriedBeforeFault}).
 */
class JoinHandOverModelTest {

  private static final String LEFT = "orders";
  private static final String RIGHT = "payments";
  private static final int TASKS = 2;
  private static final long T0 = 1_700_000_000_000L;

  /** The raise entries of a checkpoint's field {@code h}: {@code q<offset>:<watermark>}. */
  private static final java.util.regex.Pattern RAISE =
      java.util.regex.Pattern.compile("q(\\d+):(-?\\d+)");

  @Test
  void joinRowsAreThoseOfOneReadingAcrossManyOwnerChangesCrashesAndSplits() {
    Coverage coverage = new Coverage();
    for (int seed = 0; seed < 2_000; seed++) {
      Trace trace = new Trace(seed);
      try {
        trace.run();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + ": " + trace.describe() + "\n" + e, e);
      }
      coverage.add(trace);
    }
    coverage.assertReached();
  }

  /** What the traces did, summed: a model that never crashed or split proves little. */
  static final class Coverage {
    long owners;
    long crashesAfterWrite;
    long crashesBeforeWrite;
    long splits;
    long rewinds;
    long suppressed;
    long pairs;
    long unmatched;
    long late;
    long raises;
    long lateByRaises;
    long carriedBeforeFault;
    long raisesInHistories;

    void add(Trace t) {
      owners += t.ownersStarted;
      crashesAfterWrite += t.crashesAfterWrite;
      crashesBeforeWrite += t.crashesBeforeWrite;
      splits += t.splits;
      rewinds += t.rewinds;
      suppressed += t.suppressed;
      pairs += t.truthPairs;
      unmatched += t.truthUnmatched;
      late += t.truthLate.size();
      raises += t.raises;
      lateByRaises += t.lateByRaises;
      carriedBeforeFault += t.carriedBeforeFault;
      raisesInHistories += t.raisesInHistories;
    }

    void assertReached() {
      System.out.printf(
          "join hand-over model: %d owners, %d crashes after a write, %d before, %d splits,"
              + " %d rewinds, %d rows not emitted again; truth %d pairs, %d unmatched, %d late;"
              + " %d quiet-period raises (%d carried in a checkpoint's history), %d records late"
              + " by a raise alone, %d commits before a fault to carry a raise%n",
          owners,
          crashesAfterWrite,
          crashesBeforeWrite,
          splits,
          rewinds,
          suppressed,
          pairs,
          unmatched,
          late,
          raises,
          raisesInHistories,
          lateByRaises,
          carriedBeforeFault);
      assertThat(crashesAfterWrite).isGreaterThan(500);
      assertThat(crashesBeforeWrite).isGreaterThan(500);
      assertThat(splits).isGreaterThan(500);
      assertThat(rewinds).isGreaterThan(500);
      assertThat(suppressed).as("re-read rows a checkpoint said were emitted").isGreaterThan(1_000);
      assertThat(unmatched).isGreaterThan(1_000);
      assertThat(late).isGreaterThan(500);
      assertThat(raises).as("quiet-period raises").isGreaterThan(1_000);
      assertThat(raisesInHistories).as("raises a next owner replays").isGreaterThan(100);
      assertThat(lateByRaises).as("records late only because of a raise").isGreaterThan(200);
    }
  }

  /** A value to join: the record's id, so that a row's value names its records. */
  static String joined(String key, String left, String right) {
    return key + ":" + left + "|" + right;
  }

  static final class Trace {
    final Random random;
    final JoinInterval interval;
    final JoinType type;
    final long lateness;
    final long quietMillis;
    final long maxLagMillis;

    /** The group's wall clock and monotonic clock, shared by every instance. */
    final io.github.lowwater.ManualClock clock =
        new io.github.lowwater.ManualClock(java.time.Instant.ofEpochMilli(T0));

    /** Every commit the group took, in order: the reference reads the raises from them. */
    final List<Map.Entry<TopicPartition, OffsetAndMetadata>> commits = new ArrayList<>();

    /** The wall-clock readings the clock has shown: the only values a raise can take. */
    final Set<Long> walls = new HashSet<>(List.of(T0));

    /** How many records of each partition were produced so far: a reader stops there. */
    final Map<TopicPartition, Integer> available = new HashMap<>();

    /** Every row written, checked against the reference at the end. */
    final List<Map.Entry<String, String>> writes = new ArrayList<>();

    long raises;
    long lateByRaises;
    int carriedBeforeFault;
    long raisesInHistories;
    final List<TopicPartition> partitions = new ArrayList<>();
    final Map<TopicPartition, List<ConsumerRecord<String, String>>> logs = new HashMap<>();
    final Map<TopicPartition, OffsetAndMetadata> group = new HashMap<>();
    final Map<String, String> truth = new TreeMap<>();
    final Set<String> truthLate = new HashSet<>();
    final Map<String, String> sink = new TreeMap<>();

    /** Row ids written and then covered by a successful commit of the writer. */
    final Set<String> committedRows = new HashSet<>();

    final Set<String> lateReported = new HashSet<>();
    final List<String> ops = new ArrayList<>();
    final List<Owner> owners = new ArrayList<>();
    int ownersStarted;
    int crashesAfterWrite;
    int crashesBeforeWrite;
    int splits;
    int rewinds;
    long suppressed;
    long truthPairs;
    long truthUnmatched;

    Trace(long seed) {
      random = new Random(seed);
      interval =
          switch (random.nextInt(3)) {
            case 0 -> JoinInterval.within(Duration.ofMillis(random.nextInt(6)));
            case 1 -> JoinInterval.between(Duration.ofMillis(-random.nextInt(8)), Duration.ZERO);
            default -> {
              long lower = random.nextInt(9) - 4;
              yield JoinInterval.between(
                  Duration.ofMillis(lower), Duration.ofMillis(lower + random.nextInt(6)));
            }
          };
      type = JoinType.values()[random.nextInt(JoinType.values().length)];
      lateness = random.nextInt(5);
      quietMillis = 1 + random.nextInt(5);
      maxLagMillis = random.nextInt(4) == 0 ? random.nextInt(12) : 3_600_000;
      int id = 0;
      for (int p = 0; p < TASKS; p++) {
        for (String topic : List.of(LEFT, RIGHT)) {
          TopicPartition tp = new TopicPartition(topic, p);
          partitions.add(tp);
          List<ConsumerRecord<String, String>> log = new ArrayList<>();
          int n = 5 + random.nextInt(40);
          long time = T0 + random.nextInt(10);
          for (int o = 0; o < n; o++) {
            time += random.nextInt(3);
            long t = time - (random.nextInt(4) == 0 ? random.nextInt(12) : 0);
            String key = "k" + random.nextInt(3);
            log.add(record(tp, o, t, key, (topic.equals(LEFT) ? "L" : "R") + id++));
          }
          logs.put(tp, log);
          available.put(tp, random.nextInt(n / 2 + 1));
        }
      }
    }

    static ConsumerRecord<String, String> record(
        TopicPartition tp, long offset, long t, String key, String value) {
      return new ConsumerRecord<>(
          tp.topic(),
          tp.partition(),
          offset,
          t,
          TimestampType.CREATE_TIME,
          0,
          0,
          key,
          value,
          new RecordHeaders(),
          Optional.empty());
    }

    /**
     * One reading, from the rules: verdicts per partition, each partition's watermark raised where
     * the commits say (a raise {@code q<a>:<w>} before the record at {@code a}, and the watermark
     * {@code w} a checkpoint carries before its committed offset, which is where a raise at that
     * offset is carried), then pairs and unmatched rows.
     */
    void computeTruth() {
      for (int p = 0; p < TASKS; p++) {
        TopicPartition lp = new TopicPartition(LEFT, p);
        TopicPartition rp = new TopicPartition(RIGHT, p);
        List<ConsumerRecord<String, String>> l = onTime(logs.get(lp), raises(lp));
        List<ConsumerRecord<String, String>> r = onTime(logs.get(rp), raises(rp));
        Set<Long> matchedLeft = new HashSet<>();
        Set<Long> matchedRight = new HashSet<>();
        for (ConsumerRecord<String, String> a : l) {
          for (ConsumerRecord<String, String> b : r) {
            if (a.key().equals(b.key()) && interval.pairs(a.timestamp(), b.timestamp())) {
              truth.put(
                  p + "/" + a.offset() + "/" + b.offset(), joined(a.key(), a.value(), b.value()));
              matchedLeft.add(a.offset());
              matchedRight.add(b.offset());
              truthPairs++;
            }
          }
        }
        if (type != JoinType.INNER) {
          for (ConsumerRecord<String, String> a : l) {
            if (!matchedLeft.contains(a.offset())) {
              truth.put(p + "/" + a.offset() + "/-1", joined(a.key(), a.value(), null));
              truthUnmatched++;
            }
          }
        }
        if (type == JoinType.OUTER) {
          for (ConsumerRecord<String, String> b : r) {
            if (!matchedRight.contains(b.offset())) {
              truth.put(p + "/-1/" + b.offset(), joined(b.key(), null, b.value()));
              truthUnmatched++;
            }
          }
        }
      }
    }

    /**
     * The raises of a partition by offset, from every commit: the entries of {@code h}, and each
     * checkpoint's watermark at its offset. A watermark above what the records and the recorded
     * raises give must be one a raise could take (the wall clock less the lateness at some time).
     */
    TreeMap<Long, Long> raises(TopicPartition tp) {
      TreeMap<Long, Long> raises = new TreeMap<>();
      List<long[]> watermarks = new ArrayList<>();
      for (Map.Entry<TopicPartition, OffsetAndMetadata> c : commits) {
        if (!c.getKey().equals(tp)) {
          continue;
        }
        JoinCheckpoint checkpoint = JoinCheckpoint.decode(c.getValue().metadata());
        assertThat(checkpoint).as("a checkpoint that parses: " + c).isNotNull();
        java.util.regex.Matcher m = RAISE.matcher(checkpoint.history());
        while (m.find()) {
          if (!raises.containsKey(Long.parseLong(m.group(1)))) {
            raisesInHistories++;
          }
          raises.merge(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Math::max);
        }
        watermarks.add(new long[] {c.getValue().offset(), checkpoint.watermarkMillis()});
      }
      for (long[] w : watermarks) {
        long fromRecords = watermarkBefore(logs.get(tp), raises, w[0]);
        if (w[1] > fromRecords) {
          assertThat(walls)
              .as(tp + " committed at " + w[0] + " with a watermark no record or raise gives")
              .contains(w[1] + lateness);
          raises.merge(w[0], w[1], Math::max);
        }
      }
      return raises;
    }

    /** A partition's own watermark before the record at {@code offset}. */
    long watermarkBefore(
        List<ConsumerRecord<String, String>> log, TreeMap<Long, Long> raises, long offset) {
      long watermark = Long.MIN_VALUE;
      for (ConsumerRecord<String, String> r : log) {
        if (r.offset() >= offset) {
          break;
        }
        watermark = Math.max(watermark, r.timestamp() - lateness);
      }
      for (long w : raises.headMap(offset, true).values()) {
        watermark = Math.max(watermark, w);
      }
      return watermark;
    }

    /**
     * A record is late iff it is earlier than its own partition's watermark (rule 68), raised
     * before it by the raises at or below its offset.
     */
    List<ConsumerRecord<String, String>> onTime(
        List<ConsumerRecord<String, String>> log, TreeMap<Long, Long> raises) {
      List<ConsumerRecord<String, String>> onTime = new ArrayList<>();
      long watermark = Long.MIN_VALUE;
      long unraised = Long.MIN_VALUE;
      for (ConsumerRecord<String, String> r : log) {
        for (long w : raises.headMap(r.offset(), true).values()) {
          watermark = Math.max(watermark, w);
        }
        if (r.timestamp() < watermark) {
          truthLate.add(r.value());
          if (r.timestamp() >= unraised) {
            lateByRaises++;
          }
        } else {
          onTime.add(r);
        }
        watermark = Math.max(watermark, r.timestamp() - lateness);
        unraised = Math.max(unraised, r.timestamp() - lateness);
      }
      return onTime;
    }

    void run() {
      Owner first = newOwner();
      Owner second = newOwner();
      // A range assignor's start: each owns whole tasks.
      for (int p = 0; p < TASKS; p++) {
        (p % 2 == 0 ? first : second).assign(task(p));
      }
      int steps = 20 + random.nextInt(60);
      for (int s = 0; s < steps; s++) {
        Owner o = owners.get(random.nextInt(owners.size()));
        int op = random.nextInt(23);
        if (op >= 20) {
          quiet(o);
        } else if (op < 10) {
          o.poll(4);
          o.writeAndCommit();
        } else if (op < 12) {
          o.poll(4);
          o.writeFailsAndRewinds();
        } else if (op < 13) {
          o.poll(4);
          o.writeThenCommitFails();
        } else if (op < 15) {
          crash(o, random.nextBoolean());
        } else if (op < 18) {
          moveOnePartition(o);
        } else {
          reunite();
        }
      }
      finish();
    }

    /**
     * Time passes on the group's clock, longer than the quiet period or not, and an instance polls
     * once, reading little or nothing: its silent partitions may be raised (rule 74).
     */
    void quiet(Owner o) {
      long millis = 1 + random.nextInt(4);
      clock.advanceMillis(millis);
      for (TopicPartition tp : partitions) { // the producers append, or some stay silent
        if (random.nextInt(3) > 0) {
          available.merge(tp, random.nextInt(8), (a, b) -> Math.min(a + b, logs.get(tp).size()));
        }
      }
      walls.add(clock.wallMillis());
      ops.add("time passes " + millis + " ms, wall at T0+" + (clock.wallMillis() - T0));
      o.poll(1 + random.nextInt(4));
      o.writeAndCommit();
    }

    List<TopicPartition> task(int p) {
      return List.of(new TopicPartition(LEFT, p), new TopicPartition(RIGHT, p));
    }

    Owner newOwner() {
      Owner o = new Owner(this, "o" + ownersStarted++);
      owners.add(o);
      return o;
    }

    /** An instance dies without a revocation or a commit; a new one takes its partitions. */
    void crash(Owner o, boolean afterWrite) {
      if (o.assigned.isEmpty()) {
        return;
      }
      o.poll(4);
      o.carryRaises();
      if (afterWrite) {
        o.write();
        crashesAfterWrite++;
      } else {
        o.join.pollResults(); // computed, never written
        crashesBeforeWrite++;
      }
      ops.add(o.name + " crashes " + (afterWrite ? "after" : "before") + " a write");
      owners.remove(o);
      Owner next = owners.isEmpty() || random.nextBoolean() ? newOwner() : pick();
      next.assign(new ArrayList<>(o.assigned));
    }

    /** An assignor moves one partition: a task may be split, or made whole again. */
    void moveOnePartition(Owner from) {
      if (from.assigned.isEmpty() || owners.size() < 2 && random.nextBoolean()) {
        return;
      }
      TopicPartition tp = from.assigned.get(random.nextInt(from.assigned.size()));
      Owner to = owners.size() < 3 && random.nextBoolean() ? newOwner() : pick();
      if (to == from) {
        return;
      }
      from.carryRaises();
      from.revoke(List.of(tp));
      to.assign(List.of(tp));
      ops.add("move " + tp + " " + from.name + " -> " + to.name);
      if (!to.assigned.contains(sibling(tp))) {
        splits++;
      }
    }

    /** A task split across two instances is made whole on one of them. */
    void reunite() {
      for (Owner o : new ArrayList<>(owners)) {
        for (TopicPartition tp : new ArrayList<>(o.assigned)) {
          TopicPartition other = sibling(tp);
          if (!o.assigned.contains(other)) {
            Owner holder = holderOf(other);
            holder.carryRaises();
            holder.revoke(List.of(other));
            o.assign(List.of(other));
            ops.add("reunite " + other + " " + holder.name + " -> " + o.name);
            return;
          }
        }
      }
    }

    Owner holderOf(TopicPartition tp) {
      for (Owner o : owners) {
        if (o.assigned.contains(tp)) {
          return o;
        }
      }
      throw new AssertionError("nobody owns " + tp);
    }

    static TopicPartition sibling(TopicPartition tp) {
      return new TopicPartition(tp.topic().equals(LEFT) ? RIGHT : LEFT, tp.partition());
    }

    Owner pick() {
      return owners.get(random.nextInt(owners.size()));
    }

    /** Every task whole on one instance, read to its end, finished, written, committed. */
    void finish() {
      while (true) {
        boolean whole = true;
        for (Owner o : owners) {
          for (TopicPartition tp : o.assigned) {
            whole &= o.assigned.contains(sibling(tp));
          }
        }
        if (whole) {
          break;
        }
        reunite();
      }
      partitions.forEach(tp -> available.put(tp, logs.get(tp).size()));
      for (Owner o : owners) {
        o.poll(Integer.MAX_VALUE);
        o.join.finishAll();
        o.writeAndCommit();
        assertThat(o.join.heldPartitionCount()).isZero();
      }
      for (Owner o : owners) {
        suppressed += o.join.suppressedRows();
      }
      computeTruth();
      for (Map.Entry<String, String> w : writes) {
        assertThat(truth).as("a row of one reading").containsEntry(w.getKey(), w.getValue());
      }
      assertThat(sink).as("the sink against one reading").isEqualTo(truth);
      assertThat(lateReported).as("late records").isEqualTo(truthLate);
    }

    void written(KafkaJoinRow<String, String> row, Owner by) {
      String id = row.id();
      String value = row.value();
      writes.add(Map.entry(id, value));
      assertThat(id).as("a row written again after a commit covered it").isNotIn(committedRows);
      assertThat(row.kind())
          .isEqualTo(
              row.rightOffset() < 0
                  ? JoinRow.Kind.LEFT_ONLY
                  : row.leftOffset() < 0 ? JoinRow.Kind.RIGHT_ONLY : JoinRow.Kind.PAIR);
      sink.put(id, value);
      by.uncommitted.computeIfAbsent(row.task(), t -> new ArrayList<>()).add(id);
      ops.add(by.name + " writes " + id);
    }

    String describe() {
      List<String> last = ops.subList(Math.max(0, ops.size() - 200), ops.size());
      return type
          + " "
          + interval
          + " lateness "
          + lateness
          + " quiet "
          + quietMillis
          + " max lag "
          + maxLagMillis
          + ", last ops "
          + last;
    }
  }

  /** One instance of the group: its consumer (a mock that reads the model's log) and its join. */
  static final class Owner {
    final Trace trace;
    final String name;
    final List<TopicPartition> assigned = new ArrayList<>();
    final Map<TopicPartition, Long> positions = new LinkedHashMap<>();

    /** Per task, the rows written since its last commit here. */
    final Map<Integer, List<String>> uncommitted = new HashMap<>();

    /** Whether a raise was taken here since the last commit: no checkpoint carries it yet. */
    boolean raisedSinceCommit;

    final MockConsumer<String, String> consumer;
    final KafkaJoin<String, String, String, String> join;

    Owner(Trace trace, String name) {
      this.trace = trace;
      this.name = name;
      this.consumer =
          new MockConsumer<>("earliest") {
            @Override
            public synchronized void seek(TopicPartition partition, long offset) {
              positions.put(partition, offset);
            }

            @Override
            public synchronized long position(TopicPartition partition) {
              return positions.get(partition);
            }

            @Override
            public synchronized Map<TopicPartition, OffsetAndMetadata> committed(
                Set<TopicPartition> partitions) {
              Map<TopicPartition, OffsetAndMetadata> c = new HashMap<>();
              for (TopicPartition tp : partitions) {
                if (trace.group.containsKey(tp)) {
                  c.put(tp, trace.group.get(tp));
                }
              }
              return c;
            }
          };
      consumer.assign(trace.partitions); // the model decides what is read; pause needs them
      this.join =
          KafkaJoin.<String, String, String, String>builder(
                  trace.interval, JoinHandOverModelTest::joined)
              .type(trace.type)
              .allowedLateness(Duration.ofMillis(trace.lateness))
              .topics(LEFT, RIGHT)
              .consumer(consumer)
              .clock(trace.clock)
              .quietAdvanceAfter(Duration.ofMillis(trace.quietMillis))
              .quietAdvanceMaxLag(Duration.ofMillis(trace.maxLagMillis))
              .lateHandler(
                  (side, source, t, watermark, key, value) -> {
                    assertThat(((TopicPartition) source).topic())
                        .isEqualTo(side == JoinSide.LEFT ? LEFT : RIGHT);
                    trace.lateReported.add((String) value);
                  })
              .build();
    }

    void assign(List<TopicPartition> tps) {
      for (TopicPartition tp : tps) {
        OffsetAndMetadata c = trace.group.get(tp);
        positions.put(tp, c == null ? 0L : c.offset()); // the consumer starts at the commit
        assigned.add(tp);
      }
      join.rebalanceListener().onPartitionsAssigned(tps);
    }

    void revoke(List<TopicPartition> tps) {
      join.rebalanceListener().onPartitionsRevoked(tps);
      assigned.removeAll(tps);
      tps.forEach(positions::remove);
      tps.forEach(tp -> uncommitted.remove(tp.partition())); // the task's next owner writes them
      consumer.resume(tps); // a partition assigned again starts unpaused, as on a real consumer
    }

    /** Each owned partition that is not paused delivers up to {@code most} of its next records. */
    void poll(int most) {
      List<ConsumerRecord<String, String>> batch = new ArrayList<>();
      Set<TopicPartition> paused = consumer.paused();
      for (TopicPartition tp : assigned) {
        if (paused.contains(tp)) {
          continue;
        }
        List<ConsumerRecord<String, String>> log = trace.logs.get(tp);
        long position = positions.get(tp);
        int available = trace.available.get(tp);
        // A partition with records to fetch delivers at least one: it is not silent, and a real
        // consumer fetches it many times over a quiet period. Only one at its end is silent.
        int n = most == Integer.MAX_VALUE ? log.size() : 1 + trace.random.nextInt(most);
        for (int i = 0; i < n && position < available; i++) {
          batch.add(log.get((int) position++));
        }
        if (position != positions.get(tp)) {
          trace.ops.add(name + " reads " + tp + " " + positions.get(tp) + ".." + position);
        }
        positions.put(tp, position);
      }
      java.util.Collections.shuffle(batch, trace.random); // partitions interleave at random
      batch.sort(
          java.util.Comparator.comparing((ConsumerRecord<String, String> r) -> r.topic())
              .thenComparingInt(ConsumerRecord::partition)
              .thenComparingLong(ConsumerRecord::offset));
      long before = join.quietAdvances();
      join.onPoll(KafkaWindowsTest.recordsOf(batch), r -> r.key(), r -> r.value(), r -> r.value());
      if (join.quietAdvances() > before) {
        trace.raises += join.quietAdvances() - before;
        trace.ops.add(name + " raises " + (join.quietAdvances() - before) + " partitions");
        raisedSinceCommit = true;
      }
    }

    /**
     * Commits before a fault if a raise was taken since the last commit: a raise no commit carried
     * is the documented exception (rule 74), which the model does not check.
     */
    void carryRaises() {
      if (raisedSinceCommit) {
        writeAndCommit();
        trace.carriedBeforeFault++;
      }
    }

    void write() {
      for (KafkaJoinRow<String, String> row : join.pollResults()) {
        trace.written(row, this);
      }
    }

    void writeAndCommit() {
      write();
      Map<TopicPartition, OffsetAndMetadata> offsets = join.committableOffsets();
      for (TopicPartition tp : offsets.keySet()) {
        assertThat(assigned).as("commits only what it owns").contains(tp);
        assertThat(consumer.paused()).as("commits no held partition").doesNotContain(tp);
      }
      trace.group.putAll(offsets);
      trace.commits.addAll(offsets.entrySet());
      raisedSinceCommit = false;
      trace.ops.add(name + " commits " + offsets);
      for (TopicPartition tp : offsets.keySet()) {
        List<String> covered = uncommitted.remove(tp.partition());
        if (covered != null) {
          trace.committedRows.addAll(covered);
        }
      }
    }

    void writeThenCommitFails() {
      write(); // the rows are in the sink; the next commit covers them
    }

    /** The sink writes a prefix of the rows and throws; the loop rewinds to the last commit. */
    void writeFailsAndRewinds() {
      carryRaises();
      List<KafkaJoinRow<String, String>> rows = join.pollResults();
      int prefix = rows.isEmpty() ? 0 : trace.random.nextInt(rows.size());
      for (KafkaJoinRow<String, String> row : rows.subList(0, prefix)) {
        trace.written(row, this);
      }
      join.rewindToLastCommit();
      uncommitted
          .clear(); // written since the last commit: they come again, and no commit covers them
      trace.rewinds++;
    }
  }
}
