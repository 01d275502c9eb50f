package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The checkpoint codec: round trips, strict rejection, and a fuzzer that only ever sees ours. */
class CheckpointTest {

  static final List<Long> EDGES =
      List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, 1_767_225_600_000L, Long.MAX_VALUE);

  @Test
  void everyCheckpointRoundTripsAndStaysFarUnderTheBrokerLimit() {
    for (long e : EDGES) {
      for (long f : EDGES) {
        for (long w : EDGES) {
          Checkpoint c = new Checkpoint(e, f, w, Long.MAX_VALUE);
          String encoded = c.encode();
          assertThat(Checkpoint.parse(encoded)).isEqualTo(c);
          assertThat(encoded).startsWith("lw1;");
          assertThat(encoded.length()).isLessThanOrEqualTo(95).isLessThan(Checkpoint.MAX_LENGTH);
          for (long g : List.of(0L, 1L, Long.MAX_VALUE)) {
            Checkpoint paned = new Checkpoint(e, f, w, Long.MAX_VALUE, g, Long.MAX_VALUE - g);
            String v2 = paned.encode();
            assertThat(v2).startsWith("lw2;");
            assertThat(Checkpoint.parse(v2)).isEqualTo(paned);
            assertThat(v2.length()).isLessThanOrEqualTo(Checkpoint.MAX_LENGTH);
          }
        }
      }
    }
  }

  @Test
  void aCheckpointWithoutPanesIsVersionOneSoThatAnOlderReaderReadsIt() {
    assertThat(new Checkpoint(1, 2, 3, 4, 0, 0).encode()).isEqualTo("lw1;e=1;f=2;w=3;n=4");
    assertThat(new Checkpoint(1, 2, 3, 4, 5, 0).encode()).isEqualTo("lw2;e=1;f=2;w=3;n=4;g=5;p=0");
    assertThat(new Checkpoint(1, 2, 3, 4, 0, 6).encode()).isEqualTo("lw2;e=1;f=2;w=3;n=4;g=0;p=6");
    assertThat(Checkpoint.parse("lw1;e=1;f=2;w=3;n=4").paned()).isFalse();
    assertThat(Checkpoint.parse("lw2;p=6;g=5;n=4;w=3;f=2;e=1"))
        .isEqualTo(new Checkpoint(1, 2, 3, 4, 5, 6));
  }

  @Test
  void fieldsMayComeInAnyOrder() {
    assertThat(Checkpoint.parse("lw1;n=7;w=3;f=2;e=1")).isEqualTo(new Checkpoint(1, 2, 3, 7));
  }

  @Test
  void nullOrEmptyMetadataIsNoCheckpoint() {
    assertThat(Checkpoint.parse(null)).isSameAs(Checkpoint.NONE);
    assertThat(Checkpoint.parse("")).isSameAs(Checkpoint.NONE);
  }

  @Test
  void foreignOrDamagedMetadataIsRejectedWithAMessageThatSaysWhy() {
    assertRejected("{\"tool\":\"x\"}", "does not start with lw1; or lw2;");
    assertRejected("lw3;e=1;f=2;w=3;n=4", "does not start with lw1; or lw2;");
    assertRejected("lw2;e=1;f=2;w=3;n=4", "expected 6 fields, found 4");
    assertRejected("lw1;e=1;f=2;w=3;n=4;g=5;p=6", "unknown field 'g'");
    assertRejected("lw2;e=1;f=2;w=3;n=4;g=5;q=6", "unknown field 'q'");
    assertRejected("lw2;e=1;f=2;w=3;n=4;g=-5;p=6", "field 'g' is negative");
    assertRejected("lw2;e=1;f=2;w=3;n=4;g=5;p=-6", "field 'p' is negative");
    assertRejected("lw1;e=1;f=2;w=3", "expected 4 fields, found 3");
    assertRejected("lw1;e=1;f=2;w=3;n=4;x=5", "unknown field 'x'");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q5:6;x=7", "unknown field 'x'");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q5:6;o=7;i=8;l=9;s=9;x=9", "expected 4 fields, found 10");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q5:6;o=7;i=8;x=9", "unknown field 'x'");
    assertRejected("lw1;e=1;f=2;w=3;n=4;o=-7", "field 'o' is negative");
    assertRejected("lw1;e=1;f=2;w=3;n=4;o=7;o=7", "field 'o' twice");
    assertRejected("lw1;e=1;f=2;w=3;n=4;i=x", "field 'i' is not a long");
    assertRejected("lw1;e=1;e=2;w=3;n=4", "field 'e' twice");
    assertRejected("lw1;e=1;f=2;q=3;n=4", "unknown field 'q'");
    assertRejected("lw1;e=1;f=+2;w=3;n=4", "field 'f' is not a long");
    assertRejected("lw1;e=1;f=2;w=-;n=4", "field 'w' is not a long");
    assertRejected("lw1;e=1;f=2;w=3;n=", "field 4 is not <name>=<value>");
    assertRejected("lw1;e=9223372036854775808;f=2;w=3;n=4", "field 'e' is out of range");
    assertRejected("lw1;e=1;f=2;w=3;n=-4", "field 'n' is negative");
    assertRejected(
        "lw1;" + "x".repeat(Checkpoint.MAX_LENGTH),
        "longer than " + Checkpoint.MAX_LENGTH + " characters");
  }

  @Test
  void theMessageQuotesForeignMetadataWithoutControlCharactersAndCutsItShort() {
    assertThatThrownBy(() -> Checkpoint.parse("evil\nline\u0007" + "y".repeat(100)))
        .isInstanceOf(CheckpointFormatException.class)
        .hasMessageNotContaining("\n")
        .hasMessageContaining("evil?line?")
        .hasMessageEndingWith("...\"");
  }

  /**
   * Random strings, truncations, mutations of valid checkpoints and concatenations: the parser
   * returns a checkpoint or throws {@link CheckpointFormatException}, never anything else, and
   * whatever it accepts encodes back to a string it reads the same.
   */
  @Test
  void fuzzedMetadataEitherParsesOrIsRejectedWithTheFormatErrorOnly() {
    Random random = new Random(20261129);
    String alphabet = "lw12;=efwngp-0123456789 +x\u0000é";
    int accepted = 0;
    int acceptedV2 = 0;
    for (int i = 0; i < 200_000; i++) {
      String input;
      boolean paned = random.nextBoolean(); // both versions
      String valid =
          new Checkpoint(
                  EDGES.get(random.nextInt(EDGES.size())),
                  random.nextLong(),
                  EDGES.get(random.nextInt(EDGES.size())),
                  Math.abs(random.nextLong() % 1_000_000),
                  paned ? random.nextInt(100_000) : 0,
                  paned ? 1 + random.nextInt(100_000) : 0)
              .encode();
      switch (random.nextInt(4)) {
        case 0 -> input = valid.substring(0, random.nextInt(valid.length() + 1));
        case 1 -> {
          char[] chars = valid.toCharArray();
          chars[random.nextInt(chars.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
          input = new String(chars);
        }
        case 2 -> {
          StringBuilder b = new StringBuilder();
          int n = random.nextInt(40);
          for (int k = 0; k < n; k++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
          }
          input = random.nextBoolean() ? (paned ? "lw2;" : "lw1;") + b : b.toString();
        }
        default -> input = valid + (random.nextBoolean() ? ";" : "") + valid;
      }
      try {
        Checkpoint c = Checkpoint.parse(input);
        accepted++;
        acceptedV2 += c.paned() ? 1 : 0;
        assertThat(Checkpoint.parse(c.encode())).as("re-read of %s", input).isEqualTo(c);
      } catch (CheckpointFormatException expected) {
        assertThat(expected.getMessage()).startsWith("not a Lowwater checkpoint (");
      } catch (RuntimeException e) {
        fail("input " + input + " threw " + e, e);
      }
    }
    assertThat(accepted).as("the fuzzer also reaches valid inputs").isPositive();
    assertThat(acceptedV2).as("... of version 2").isPositive();
  }

  /**
   * Issue 32: the wall-clock decisions between the committed offset and {@code n} ride in an
   * optional last field {@code h}, in either version, and come back as written.
   */
  @Test
  void theWallClockHistoryIsAnOptionalFieldOfEitherVersionAndRoundTrips() {
    Checkpoint v1 = new Checkpoint(1, 2, 3, 4, 0, 0, "c3:1767225600000,q5:-7,q9:8");
    assertThat(v1.encode()).isEqualTo("lw1;e=1;f=2;w=3;n=4;h=c3:1767225600000,q5:-7,q9:8");
    assertThat(Checkpoint.parse(v1.encode())).isEqualTo(v1);
    Checkpoint v2 = new Checkpoint(1, 2, 3, 4, 5, 6, "q5:6");
    assertThat(Checkpoint.parse(v2.encode())).isEqualTo(v2);
    assertThat(Checkpoint.parse("lw2;h=q5:6;e=1;f=2;w=3;n=4;g=5;p=6")).isEqualTo(v2);
    assertThat(new Checkpoint(1, 2, 3, 4).encode()).doesNotContain("h=");
    Checkpoint widest = widest(WallClockHistory.RAISE);
    assertThat(widest.encode().length()).isLessThanOrEqualTo(Checkpoint.MAX_LENGTH);
    assertThat(Checkpoint.parse(widest.encode())).isEqualTo(widest);
  }

  /**
   * Issue 45, items 1 and 8: the writer's allowed lateness and future guard ride in {@code l} and
   * {@code s}, optional on reading (without {@code l} the configuration is the reader's); the
   * widest checkpoint, every field at its widest and sixteen history entries, is at most {@link
   * Checkpoint#MAX_LENGTH} = 901 characters, under the broker's 4,096-byte default.
   */
  @Test
  void theWritersLatenessAndGuardAreOptionalFieldsAndTheWidestCheckpointFitsTheBroker() {
    Checkpoint guarded = new Checkpoint(1, 2, 3, 9).at(7, Checkpoint.COMPLETE).configured(120, 30);
    assertThat(guarded.encode()).isEqualTo("lw1;e=1;f=2;w=3;n=9;o=7;l=120;s=30");
    assertThat(Checkpoint.parse(guarded.encode())).isEqualTo(guarded);
    Checkpoint unguarded = new Checkpoint(1, 2, 3, 9, 5, 6, "").configured(0, Checkpoint.NO_GUARD);
    assertThat(unguarded.encode()).isEqualTo("lw2;e=1;f=2;w=3;n=9;l=0;g=5;p=6");
    assertThat(Checkpoint.parse(unguarded.encode())).isEqualTo(unguarded);
    assertRejected("lw1;e=1;f=2;w=3;n=9;s=30", "field 's' without 'l'");
    assertRejected("lw1;e=1;f=2;w=3;n=9;l=-1", "field 'l' is negative");
    assertRejected("lw1;e=1;f=2;w=3;n=9;l=1;s=-1", "field 's' is negative");

    assertThat(guarded.sameJudgement(0, 0, 120, 30)).isTrue();
    assertThat(guarded.sameJudgement(0, 0, 60, 30)).as("another lateness").isFalse();
    assertThat(guarded.sameJudgement(0, 0, 120, Checkpoint.NO_GUARD)).as("guard off").isFalse();
    assertThat(guarded.sameJudgement(0, 0, 120, 31)).as("another skew").isFalse();
    assertThat(guarded.sameJudgement(1, 0, 120, 30)).as("a grace period").isFalse();
    assertThat(new Checkpoint(1, 2, 3, 9).sameJudgement(0, 0, 60_000, 5))
        .as("written before l: taken to be the reader's")
        .isTrue();

    String widest = widest(WallClockHistory.GUARD).encode();
    assertThat(widest).hasSize(Checkpoint.MAX_LENGTH);
    assertThat(Checkpoint.parse(widest).encode()).isEqualTo(widest);
    assertThat(Checkpoint.MAX_LENGTH).isEqualTo(901).isLessThan(4_096);
  }

  @Test
  void theOffsetItIsCommittedWithAndTheIncompleteBoundAreOptionalFieldsOfBothVersions() {
    Checkpoint v1 = new Checkpoint(1, 2, 3, 9).at(7, 1_700_000_000_000L);
    assertThat(v1.encode()).isEqualTo("lw1;e=1;f=2;w=3;n=9;o=7;i=1700000000000");
    assertThat(Checkpoint.parse(v1.encode())).isEqualTo(v1);
    Checkpoint v2 = new Checkpoint(1, 2, 3, 9, 5, 6, "q8:4").at(7, Checkpoint.COMPLETE);
    assertThat(v2.encode()).isEqualTo("lw2;e=1;f=2;w=3;n=9;o=7;g=5;p=6;h=q8:4");
    assertThat(Checkpoint.parse(v2.encode())).isEqualTo(v2);
    assertThat(Checkpoint.parse("lw1;i=5;o=7;n=9;w=3;f=2;e=1")) // any order
        .isEqualTo(new Checkpoint(1, 2, 3, 9).at(7, 5));
    Checkpoint old = Checkpoint.parse("lw1;e=1;f=2;w=3;n=9"); // written before the fields
    assertThat(old.committedOffset()).isEqualTo(Checkpoint.UNRECORDED);
    assertThat(old.incompleteBeforeMillis()).isEqualTo(Checkpoint.COMPLETE);
  }

  @Test
  void aCheckpointDescribesOnlyTheOffsetItWasCommittedWithUnlessItDoesNotSay() {
    Checkpoint own = new Checkpoint(1, 2, 3, 9).at(7, Checkpoint.COMPLETE);
    assertThat(own.describes(7)).isTrue();
    assertThat(own.describes(6)).isFalse(); // MirrorMaker 2 translated it to another log
    assertThat(own.describes(8)).isFalse();
    assertThat(new Checkpoint(1, 2, 3, 9).describes(6)).isTrue(); // unrecorded: taken as it is
  }

  @Test
  void aDamagedHistoryIsRejectedWithAMessageThatSaysWhy() {
    assertRejected(
        "lw1;e=1;f=2;w=3;h=q5:6", "expected 4 fields and the optional 'h', 'o', 'i', 'l' and 's'");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=x5:6", "field 'h' has a malformed entry");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q5", "field 'h' has a malformed entry");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q-5:6", "field 'h' has a malformed entry");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q5:6,", "field 'h' has a malformed entry");
    assertRejected("lw1;e=1;f=2;w=3;n=4;h=q5:+6", "field 'h' has a malformed entry");
    assertRejected("lw1;e=1;f=2;w=3;h=q5:6;h=q6:7", "field 'h' twice");
    assertRejected(
        "lw1;e=1;f=2;w=3;n=4;h=" + "q5:6,".repeat(WallClockHistory.MAX_ENTRIES) + "q5:6",
        "field 'h' has more than " + WallClockHistory.MAX_ENTRIES + " entries");
  }

  /**
   * Issue 45, item 1: an owner that turned the guard on while its checkpoint carried a quiet-period
   * raise committed {@code h=q3:…,c1:…}, which the parser refused as "not in offset order": the
   * next owner started without a checkpoint, took records its predecessors had reported late and
   * replaced written rows with partial ones. Such a checkpoint, committed by an earlier version, is
   * read, its entries in offset order.
   */
  @Test
  void aHistoryOutOfOffsetOrderAsEarlierVersionsWroteItIsReadInOffsetOrder() {
    Checkpoint c = Checkpoint.parse("lw1;e=1;f=2;w=3;n=4;o=0;h=q3:6,c1:7");
    assertThat(c.history()).isEqualTo("q3:6,c1:7");
    WallClockHistory h = new WallClockHistory();
    h.restore(c.history());
    assertThat(h.due(1)).isTrue();
    assertThat(h.dueKind()).isEqualTo(WallClockHistory.GUARD);
    assertThat(h.applyDue()).isEqualTo(7);
    assertThat(h.due(2)).isFalse();
    assertThat(h.due(3)).isTrue();
    assertThat(h.applyDue()).isEqualTo(6);
  }

  /** Every field at its widest, and the most history entries of {@code kind}. */
  static Checkpoint widest(char kind) {
    StringBuilder longest = new StringBuilder();
    for (int i = 0; i < WallClockHistory.MAX_ENTRIES; i++) {
      longest.append(i == 0 ? "" : ",").append(kind).append(Long.MAX_VALUE).append(':');
      longest.append(Long.MIN_VALUE);
    }
    return new Checkpoint(
        Long.MIN_VALUE,
        Long.MIN_VALUE,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        Long.MAX_VALUE,
        longest.toString(),
        Long.MAX_VALUE,
        Long.MIN_VALUE + 1,
        Long.MAX_VALUE,
        Long.MAX_VALUE);
  }

  static void assertRejected(String metadata, String problem) {
    assertThatThrownBy(() -> Checkpoint.parse(metadata))
        .isInstanceOf(CheckpointFormatException.class)
        .hasMessageContaining("(" + problem + ")");
  }
}
