package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@link OffsetLedger} against a naive {@link TreeMap} reference, and its edges. */
class OffsetLedgerTest {

  @Test
  void aWindowKeepsItsFirstOffsetAndTheStateBeforeIt() {
    OffsetLedger ledger = new OffsetLedger();
    ledger.hold(300, 10, 100, 250, 260, 7_000);
    ledger.hold(300, 11, 120, 260, 270, 8_000);
    assertThat(ledger.size()).isEqualTo(1);
    int oldest = ledger.oldest();
    assertThat(ledger.offset(oldest)).isEqualTo(10);
    assertThat(ledger.watermarkBefore(oldest)).isEqualTo(100);
    assertThat(ledger.frontierBefore(oldest)).isEqualTo(250);
    assertThat(ledger.eventTime(oldest)).isEqualTo(260);
    assertThat(ledger.readWallMillis(oldest)).isEqualTo(7_000);
  }

  @Test
  void theOldestOffsetMayBelongToANewerWindow() {
    OffsetLedger ledger = new OffsetLedger();
    ledger.hold(600, 5, 0, 0, 0, 0); // out of order within the partition: a newer window first
    ledger.hold(300, 6, 0, 0, 0, 0);
    assertThat(ledger.offset(ledger.oldest())).isEqualTo(5);
    ledger.release(300);
    assertThat(ledger.offset(ledger.oldest())).isEqualTo(5);
    ledger.release(600);
    assertThat(ledger.oldest()).isEqualTo(-1);
    assertThat(ledger.newestEnd()).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void releaseAtTheLongBoundsEmptiesOrKeepsEverything() {
    OffsetLedger ledger = new OffsetLedger();
    ledger.hold(Long.MAX_VALUE, 1, 0, 0, 0, 0);
    ledger.hold(Long.MIN_VALUE + 1, 2, 0, 0, 0, 0);
    ledger.release(Long.MIN_VALUE);
    assertThat(ledger.size()).isEqualTo(2);
    ledger.release(Long.MAX_VALUE);
    assertThat(ledger.size()).isZero();
  }

  /** Random holds and releases, compared after every step with a TreeMap of end to record. */
  @Test
  void randomOperationsMatchANaiveSortedMap() {
    for (int seed = 0; seed < 300; seed++) {
      Random random = new Random(seed);
      OffsetLedger ledger = new OffsetLedger();
      TreeMap<Long, long[]> reference = new TreeMap<>();
      StringBuilder trace = new StringBuilder();
      long offset = 0;
      for (int step = 0; step < 400; step++) {
        if (random.nextInt(4) > 0) {
          long end = (random.nextInt(40) - 10) * 300L;
          long w = random.nextLong();
          long f = random.nextLong();
          long t = random.nextLong();
          long read = random.nextLong();
          offset += 1 + random.nextInt(3);
          trace.append(" hold(").append(end).append(',').append(offset).append(')');
          ledger.hold(end, offset, w, f, t, read);
          reference.putIfAbsent(end, new long[] {offset, w, f, t, read});
        } else {
          long through = (random.nextInt(40) - 12) * 300L;
          trace.append(" release(").append(through).append(')');
          ledger.release(through);
          reference.headMap(through, true).clear();
        }
        String at = "seed " + seed + ":" + trace;
        assertThat(ledger.size()).as(at).isEqualTo(reference.size());
        assertThat(ledger.newestEnd())
            .as(at)
            .isEqualTo(reference.isEmpty() ? Long.MIN_VALUE : reference.lastKey());
        int oldest = ledger.oldest();
        if (reference.isEmpty()) {
          assertThat(oldest).as(at).isEqualTo(-1);
        } else {
          Map.Entry<Long, long[]> min =
              reference.entrySet().stream()
                  .min((a, b) -> Long.compare(a.getValue()[0], b.getValue()[0]))
                  .orElseThrow();
          assertThat(ledger.offset(oldest)).as(at).isEqualTo(min.getValue()[0]);
          assertThat(ledger.watermarkBefore(oldest)).as(at).isEqualTo(min.getValue()[1]);
          assertThat(ledger.frontierBefore(oldest)).as(at).isEqualTo(min.getValue()[2]);
          assertThat(ledger.eventTime(oldest)).as(at).isEqualTo(min.getValue()[3]);
          assertThat(ledger.readWallMillis(oldest)).as(at).isEqualTo(min.getValue()[4]);
        }
      }
    }
  }
}
