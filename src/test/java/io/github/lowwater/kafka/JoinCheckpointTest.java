package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.join.JoinSide;
import org.junit.jupiter.api.Test;

class JoinCheckpointTest {

  @Test
  void aClaimCoversPairsBelowBothPositionsAndUnmatchedRowsClosedByItsWatermark() {
    JoinCheckpoint c = JoinCheckpoint.at(95, 10, 20, 100, JoinCheckpoint.NONE, 0, 0);
    assertThat(c.pairEmitted(9, 19)).isTrue();
    assertThat(c.pairEmitted(10, 19)).as("the left record was read after the claim").isFalse();
    assertThat(c.pairEmitted(9, 20)).isFalse();
    assertThat(c.unmatchedEmitted(JoinSide.LEFT, 9, 100)).as("closed at e exactly").isTrue();
    assertThat(c.unmatchedEmitted(JoinSide.LEFT, 9, 101)).as("still waiting at e").isFalse();
    assertThat(c.unmatchedEmitted(JoinSide.RIGHT, 19, 50)).isTrue();
    assertThat(c.unmatchedEmitted(JoinSide.RIGHT, 20, 50)).isFalse();
    assertThat(c.read(JoinSide.LEFT, 9)).isTrue();
    assertThat(c.read(JoinSide.LEFT, 10)).isFalse();
    assertThat(c.watermarkMillis()).isEqualTo(95);
  }

  @Test
  void itRoundTripsThroughTheMetadataAtTheLongBounds() {
    JoinCheckpoint restored = JoinCheckpoint.at(1, 50, 2, 7, JoinCheckpoint.NONE, 0, 0);
    JoinCheckpoint c = JoinCheckpoint.at(Long.MIN_VALUE, 3, 40, Long.MAX_VALUE, restored, 0, 0);
    assertThat(c.encode())
        .isEqualTo("lj1;w=" + Long.MIN_VALUE + ";c=3:40:" + Long.MAX_VALUE + ",50:2:7");
    JoinCheckpoint back = JoinCheckpoint.decode(c.encode());
    assertThat(back.encode()).isEqualTo(c.encode());
    assertThat(back.pairEmitted(49, 1)).as("the older claim").isTrue();
    assertThat(back.pairEmitted(2, 39)).as("the newer claim").isTrue();
    assertThat(back.pairEmitted(49, 39)).as("neither").isFalse();
  }

  @Test
  void aClaimIsDroppedOnlyWhenAnotherCoversItOrBothCommittedOffsetsHavePassedIt() {
    JoinCheckpoint c = JoinCheckpoint.at(0, 5, 5, 5, JoinCheckpoint.NONE, 0, 0);
    c = JoinCheckpoint.at(0, 6, 6, 6, c, 0, 0); // covers (5, 5, 5)
    assertThat(c.encode()).endsWith(";c=6:6:6");
    c = JoinCheckpoint.at(0, 1, 1, 1, c, 0, 0); // covered by (6, 6, 6): says nothing new
    assertThat(c.encode()).endsWith(";c=6:6:6");
    // Claims no other covers are all kept, however many: an older owner's claim may be the one
    // that suppresses the unmatched row of a record whose partner it released.
    for (int i = 0; i < 6; i++) {
      c = JoinCheckpoint.at(0, 7 + i, 0, 6 - i, c, 0, 0);
    }
    assertThat(c.encode()).endsWith(";c=12:0:1,11:0:2,10:0:3,9:0:4,8:0:5,7:0:6,6:6:6");
    // Once both committed offsets are at or past a claim's positions, no re-read record is below
    // it: dropped. (12, 0) is passed by commits at (12, 0); (6, 6) needs the right one at 6 too.
    c = JoinCheckpoint.at(0, 13, 1, 0, c, 12, 5);
    assertThat(c.encode()).endsWith(";c=13:1:0,6:6:6");
    c = JoinCheckpoint.at(0, 13, 7, 0, c, 12, 6);
    assertThat(c.encode()).endsWith(";c=13:7:0");
  }

  /** The worst case: every field at its longest, 66 claims that none covers, in 4,096 bytes. */
  static JoinCheckpoint longest(int claims) {
    StringBuilder b = new StringBuilder("lj1;w=").append(Long.MIN_VALUE).append(";c=");
    for (int i = 0; i < claims; i++) {
      long n = 9_100_000_000_000_000_000L;
      b.append(i == 0 ? "" : ",").append(n - i).append(':').append(n + i).append(':');
      b.append(Long.MIN_VALUE);
    }
    return JoinCheckpoint.decode(b.toString());
  }

  @Test
  void theLongestCheckpointOf66ClaimsFitsTheBrokersDefaultLimitAnd67DoNot() {
    assertThat(longest(1).encode()).hasSize(29 + 61 - 1);
    assertThat(longest(66).encode()).hasSize(29 + 61 * 66 - 1).hasSizeLessThanOrEqualTo(4096);
    assertThat(longest(67).encode().length()).isGreaterThan(JoinCheckpoint.MAX_BYTES);
    assertThat(JoinCheckpoint.decode(longest(66).encode()).encode())
        .isEqualTo(longest(66).encode());
  }

  /** The worst history: 16 raises of a 19-digit offset and a 20-character watermark. */
  static String longestHistory() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < WallClockHistory.MAX_ENTRIES; i++) {
      b.append(i == 0 ? "" : ",").append('q').append(9_100_000_000_000_000_000L + i);
      b.append(':').append(Long.MIN_VALUE);
    }
    return b.toString();
  }

  /**
   * Rule 74: with a full history of quiet-period raises ({@code h}, 674 characters at the most), 55
   * of the longest claims fit the broker's default 4,096 bytes and 56 do not.
   */
  @Test
  void theLongestCheckpointOf55ClaimsAndAFullHistoryFitsTheBrokersLimitAnd56DoNot() {
    assertThat(";h=" + longestHistory()).hasSize(3 + 16 * 41 + 15).hasSize(674);
    String fits = longest(55).of(Long.MIN_VALUE, longestHistory()).encode();
    assertThat(fits).hasSize(29 + 61 * 55 - 1 + 674).hasSizeLessThanOrEqualTo(4096);
    assertThat(longest(56).of(Long.MIN_VALUE, longestHistory()).encode().length())
        .isGreaterThan(JoinCheckpoint.MAX_BYTES);
    assertThat(JoinCheckpoint.decode(fits).encode()).isEqualTo(fits);
    assertThat(JoinCheckpoint.decode(fits).history()).isEqualTo(longestHistory());
  }

  /**
   * Rule 74: the history field is optional, written only when there is a raise to carry, so a
   * checkpoint without one is the one earlier versions wrote; guard readings, which a join never
   * takes, and malformed entries make the metadata no checkpoint of this version.
   */
  @Test
  void aHistoryRoundTripsAndACheckpointWithoutOneReadsAsNone() {
    JoinCheckpoint c = JoinCheckpoint.at(0, 10, 20, 100, JoinCheckpoint.NONE, 0, 0);
    assertThat(c.of(5, "").encode()).isEqualTo("lj1;w=5;c=10:20:100");
    assertThat(c.of(5, "q12:90,q15:95").encode()).isEqualTo("lj1;w=5;c=10:20:100;h=q12:90,q15:95");
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100;h=q12:90,q15:95").history())
        .isEqualTo("q12:90,q15:95");
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100").history()).isEmpty();
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100;h=c12:90")).as("a guard").isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100;h=")).isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100;h=q12")).isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100;x=q12:90")).isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=5;c=10:20:100;h=q1:2;h=q3:4")).isNull();
    assertThat(c.readThrough(io.github.lowwater.join.JoinSide.LEFT)).isEqualTo(10);
    assertThat(c.readThrough(io.github.lowwater.join.JoinSide.RIGHT)).isEqualTo(20);
    assertThat(JoinCheckpoint.NONE.readThrough(io.github.lowwater.join.JoinSide.LEFT)).isZero();
  }

  @Test
  void twoPartitionsClaimsAreUnitedWithEachOnesOwnWatermark() {
    JoinCheckpoint left = JoinCheckpoint.at(10, 4, 1, 9, JoinCheckpoint.NONE, 0, 0);
    JoinCheckpoint right = JoinCheckpoint.at(20, 1, 4, 9, JoinCheckpoint.NONE, 0, 0);
    JoinCheckpoint both = left.withClaimsOf(right);
    assertThat(both.watermarkMillis()).isEqualTo(10);
    assertThat(both.pairEmitted(3, 0)).isTrue();
    assertThat(both.pairEmitted(0, 3)).isTrue();
    assertThat(both.pairEmitted(3, 3)).isFalse();
    assertThat(left.withClaimsOf(left).encode()).isEqualTo(left.encode());
  }

  @Test
  void metadataThatIsNotAJoinCheckpointReadsAsNone() {
    assertThat(JoinCheckpoint.decode(null)).isNull();
    assertThat(JoinCheckpoint.decode("")).isNull();
    assertThat(JoinCheckpoint.decode("lw2;w=1")).as("a windows checkpoint").isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=x;c=")).isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=1;c=1:2")).isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=1")).isNull();
    assertThat(JoinCheckpoint.decode("lj1;w=1;c=").isEmpty()).isFalse();
    assertThat(JoinCheckpoint.NONE.isEmpty()).isTrue();
  }
}
