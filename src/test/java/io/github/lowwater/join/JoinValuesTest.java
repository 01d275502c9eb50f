package io.github.lowwater.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The value types of the join package: equality, hashing, accessors and their text. */
class JoinValuesTest {

  @Test
  void joinIntervalsAreValuesOfTheirTwoBounds() {
    JoinInterval a = JoinInterval.between(Duration.ofMillis(-3), Duration.ofMillis(5));
    assertThat(a.lowerMillis()).isEqualTo(-3);
    assertThat(a.upperMillis()).isEqualTo(5);
    assertThat(a)
        .isEqualTo(JoinInterval.between(Duration.ofMillis(-3), Duration.ofMillis(5)))
        .hasSameHashCodeAs(JoinInterval.between(Duration.ofMillis(-3), Duration.ofMillis(5)))
        .isNotEqualTo(JoinInterval.between(Duration.ofMillis(-3), Duration.ofMillis(6)))
        .isNotEqualTo(JoinInterval.between(Duration.ofMillis(-2), Duration.ofMillis(5)))
        .isNotEqualTo("JoinInterval[-3 ms, 5 ms]");
    assertThat(a.hashCode())
        .isNotEqualTo(JoinInterval.between(Duration.ofMillis(5), Duration.ofMillis(5)).hashCode());
    assertThat(JoinInterval.within(Duration.ofSeconds(2)))
        .isEqualTo(JoinInterval.between(Duration.ofSeconds(-2), Duration.ofSeconds(2)));
  }

  @Test
  void sidedValuesAreEqualByTheirSideAndValue() {
    Sided<Long, Long> left = Sided.left(7L);
    assertThat(left).isEqualTo(Sided.left(7L)).hasSameHashCodeAs(Sided.left(7L));
    assertThat(left).isNotEqualTo(Sided.right(7L)).isNotEqualTo(Sided.left(8L)).isNotEqualTo(7L);
    assertThat(left.hashCode()).isNotEqualTo(Sided.<Long, Long>right(7L).hashCode());
    assertThat(Sided.<Long, Long>right(7L).right()).isEqualTo(7L);
    assertThat(left.toString()).isEqualTo("LEFT(7)");
  }

  @Test
  void aReconciledRowCarriesBothSidesAndTheirCounts() {
    Reconciled<Long, Long> r = new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 1, 2);
    assertThat(r.status()).isEqualTo(Reconciled.Status.DIFFERENT);
    assertThat(r.left()).isEqualTo(3L);
    assertThat(r.right()).isEqualTo(4L);
    assertThat(r.leftCount()).isEqualTo(1);
    assertThat(r.rightCount()).isEqualTo(2);
    assertThat(r)
        .isEqualTo(new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 1, 2))
        .hasSameHashCodeAs(new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 1, 2))
        .isNotEqualTo(new Reconciled<>(Reconciled.Status.MATCHED, 3L, 4L, 1, 2))
        .isNotEqualTo(new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 5L, 1, 2))
        .isNotEqualTo(new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 2, 2))
        .isNotEqualTo(new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 1, 3));
    assertThat(r.hashCode())
        .isNotEqualTo(new Reconciled<>(Reconciled.Status.DIFFERENT, 3L, 4L, 1, 3).hashCode());
    assertThat(r.toString()).isEqualTo("DIFFERENT(left 3 x1, right 4 x2)");
  }

  @Test
  void aJoinRowIsAValueOfItsKindKeyTimeAndValue() {
    JoinRow<String, String> row = new JoinRow<>(JoinRow.Kind.PAIR, "k", 5, "v");
    assertThat(row)
        .isEqualTo(new JoinRow<>(JoinRow.Kind.PAIR, "k", 5, "v"))
        .hasSameHashCodeAs(new JoinRow<>(JoinRow.Kind.PAIR, "k", 5, "v"))
        .isNotEqualTo(new JoinRow<>(JoinRow.Kind.LEFT_ONLY, "k", 5, "v"))
        .isNotEqualTo(new JoinRow<>(JoinRow.Kind.PAIR, "j", 5, "v"))
        .isNotEqualTo(new JoinRow<>(JoinRow.Kind.PAIR, "k", 6, "v"))
        .isNotEqualTo(new JoinRow<>(JoinRow.Kind.PAIR, "k", 5, null));
    assertThat(row.hashCode())
        .isNotEqualTo(new JoinRow<>(JoinRow.Kind.PAIR, "k", 6, "v").hashCode());
    assertThat(row.toString()).isEqualTo("PAIR(k @5 = v)");
    assertThat(new JoinRow<>(JoinRow.Kind.LEFT_ONLY, "k", 5, null).value()).isNull();
  }
}
