package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.join.JoinSide;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link KafkaJoin} commits with each input partition of a task, in the offset's metadata:
 * the partition's own watermark before its committed offset, and the task's <em>claims</em>.
 *
 * <p>A claim {@code (nLeft, nRight, e)} says: this task's rows were drained up to read positions
 * {@code nLeft} and {@code nRight} (the next offsets to read) while its watermark was {@code e}. So
 * every pair of two records below their positions was emitted, and so was the unmatched row of
 * every record below its position whose waiting ended by {@code e} (its close time {@code <= e}). A
 * new owner re-reads from the committed offsets and does not emit those rows again: a pair because
 * it was emitted, an unmatched row also because its partner may lie below the committed offset and
 * not be re-read (docs/design.md, "Joins in a consumer group"). Every claim an owner inherited is
 * needed until both committed offsets have passed its positions (then no re-read record lies below
 * it): an older owner's claim is what suppresses the unmatched row of a record whose partner that
 * owner released, as long as a re-reading has not passed the record. So a claim is dropped only
 * when both committed offsets have passed it, or when another claim covers it (at least as high in
 * every component). Claims pile up only while owners change faster than they re-read, about 40
 * bytes each with real offsets and times, 61 at the most. So a checkpoint is checked against {@link
 * #MAX_BYTES} before a commit ({@link JoinTask}): one longer is not committed, the task's commit
 * stays at the last checkpoint that fitted (a true one: the rows emitted since are emitted again by
 * the next reader, as after a failed commit), until the committed offsets pass enough claims for it
 * to fit again.
 *
 * <p>A checkpoint also carries the partition's quiet-period raises after its committed offset
 * (semantics rule 74; {@link WallClockHistory}'s {@code q<offset>:<watermark>} entries, at most
 * {@link WallClockHistory#MAX_ENTRIES}), so that the next owner replays each one when its read
 * position reaches that offset. Unlike the claims, the history is the partition's own: the task
 * unites the claims of both partitions, never their histories.
 *
 * <p>Format: {@code lj1;w=<watermark>;c=<nLeft>:<nRight>:<e>[,...][;h=q<offset>:<w>[,...]]},
 * decimal longs, newest claim first, ASCII. The field {@code h} is written only when there is a
 * raise to carry, so a checkpoint without one is the one versions before it wrote, and they read;
 * they read one with {@code h} as no checkpoint (a WARN, the partition starts from its committed
 * offset without one). At most {@code 29 + 61 * claims - 1} characters without {@code h} (a
 * 20-character watermark, claims of two 19-digit offsets and a 20-character {@code e}), so at most
 * 66 claims in {@link #MAX_BYTES}; {@code h} adds at most {@code 3 + 16 * 41 + 15 = 674} (entries
 * of a 19-digit offset and a 20-character watermark), so 55 claims with a full history. Immutable.
 */
final class JoinCheckpoint {

  static final String PREFIX = "lj1;";

  /**
   * The longest checkpoint committed: the broker's default {@code offset.metadata.max.bytes}, over
   * which a commit fails ({@code OffsetMetadataTooLargeException}). Bytes are characters: ASCII.
   */
  static final int MAX_BYTES = 4096;

  static final JoinCheckpoint NONE = new JoinCheckpoint(WatermarkTracker.UNSEEN, new long[0][], "");

  private final long watermarkMillis;
  private final long[][] claims; // {nLeft, nRight, e}, newest first

  /** The partition's raises after the committed offset, {@link WallClockHistory}'s; "" for none. */
  private final String history;

  private JoinCheckpoint(long watermarkMillis, long[][] claims, String history) {
    this.watermarkMillis = watermarkMillis;
    this.claims = claims;
    this.history = history;
  }

  /**
   * The checkpoint of one partition at a commit: its own watermark before the committed offset, the
   * new claim, and the restored claims that the new one does not cover.
   */
  static JoinCheckpoint at(
      long watermarkMillis,
      long nLeft,
      long nRight,
      long e,
      JoinCheckpoint restored,
      long committedLeft,
      long committedRight) {
    List<long[]> all = new ArrayList<>();
    all.add(new long[] {nLeft, nRight, e});
    for (long[] c : restored.claims) {
      if (c[0] > committedLeft || c[1] > committedRight) { // else no re-read record is below it
        all.add(c);
      }
    }
    List<long[]> kept = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      if (!dominated(all, i)) {
        kept.add(all.get(i));
      }
    }
    return new JoinCheckpoint(watermarkMillis, kept.toArray(new long[0][]), "");
  }

  /**
   * Whether claim {@code i} says nothing another does not: another is at least as high in every
   * component (the first of equal claims is kept).
   */
  private static boolean dominated(List<long[]> claims, int i) {
    long[] c = claims.get(i);
    for (int j = 0; j < claims.size(); j++) {
      long[] d = claims.get(j);
      boolean covers = j != i && c[0] <= d[0] && c[1] <= d[1] && c[2] <= d[2];
      boolean equal = c[0] == d[0] && c[1] == d[1] && c[2] == d[2];
      if (covers && (!equal || j < i)) {
        return true;
      }
    }
    return false;
  }

  /**
   * These claims, with a partition's own watermark before its committed offset and its raises after
   * it ({@code ""} for none).
   */
  JoinCheckpoint of(long watermarkMillis, String history) {
    return new JoinCheckpoint(watermarkMillis, claims, history);
  }

  /** The union of two partitions' checkpoints' claims (each claim is true), with this watermark. */
  JoinCheckpoint withClaimsOf(JoinCheckpoint other) {
    List<long[]> all = new ArrayList<>(List.of(claims));
    for (long[] c : other.claims) {
      boolean known = false;
      for (long[] k : all) {
        known |= k[0] == c[0] && k[1] == c[1] && k[2] == c[2];
      }
      if (!known) {
        all.add(c);
      }
    }
    return new JoinCheckpoint(watermarkMillis, all.toArray(new long[0][]), history);
  }

  long watermarkMillis() {
    return watermarkMillis;
  }

  /** The partition's quiet-period raises after the committed offset; {@code ""} for none. */
  String history() {
    return history;
  }

  /**
   * How far the owners that made these claims had read this side: the highest claimed position, or
   * {@code 0} without claims. The records below it exist, so the side is not quiet before this
   * owner has read them (rule 28's condition, in rule 74).
   */
  long readThrough(JoinSide side) {
    int n = side == JoinSide.LEFT ? 0 : 1;
    long through = 0;
    for (long[] c : claims) {
      through = Math.max(through, c[n]);
    }
    return through;
  }

  int claimCount() {
    return claims.length;
  }

  boolean isEmpty() {
    return claims.length == 0 && watermarkMillis == WatermarkTracker.UNSEEN;
  }

  /** Whether the pair of the records at these offsets was emitted before the claims were made. */
  boolean pairEmitted(long leftOffset, long rightOffset) {
    for (long[] c : claims) {
      if (leftOffset < c[0] && rightOffset < c[1]) {
        return true;
      }
    }
    return false;
  }

  /** Whether the unmatched row of this record, which closes at {@code closeMillis}, was emitted. */
  boolean unmatchedEmitted(JoinSide side, long offset, long closeMillis) {
    int n = side == JoinSide.LEFT ? 0 : 1;
    for (long[] c : claims) {
      if (offset < c[n] && closeMillis <= c[2]) {
        return true;
      }
    }
    return false;
  }

  /** Whether the record at this offset was read before: its verdict, late or not, was taken. */
  boolean read(JoinSide side, long offset) {
    int n = side == JoinSide.LEFT ? 0 : 1;
    for (long[] c : claims) {
      if (offset < c[n]) {
        return true;
      }
    }
    return false;
  }

  String encode() {
    StringBuilder b = new StringBuilder(PREFIX).append("w=").append(watermarkMillis).append(";c=");
    for (int i = 0; i < claims.length; i++) {
      b.append(i == 0 ? "" : ",").append(claims[i][0]).append(':').append(claims[i][1]);
      b.append(':').append(claims[i][2]);
    }
    if (!history.isEmpty()) {
      b.append(";h=").append(history);
    }
    return b.toString();
  }

  /**
   * Reads a checkpoint, or returns {@code null} if {@code metadata} is not one (another tool's
   * commit, or none): the caller then starts the partition without one.
   */
  static JoinCheckpoint decode(String metadata) {
    if (metadata == null || !metadata.startsWith(PREFIX)) {
      return null;
    }
    try {
      String[] parts = metadata.substring(PREFIX.length()).split(";", -1);
      if (parts.length < 2
          || parts.length > 3
          || !parts[0].startsWith("w=")
          || !parts[1].startsWith("c=")) {
        return null;
      }
      String history = parts.length == 3 ? history(parts[2]) : "";
      if (history == null) {
        return null;
      }
      long watermark = Long.parseLong(parts[0].substring(2));
      String list = parts[1].substring(2);
      List<long[]> claims = new ArrayList<>();
      for (String c : list.isEmpty() ? new String[0] : list.split(",", -1)) {
        String[] f = c.split(":", -1);
        if (f.length != 3) {
          return null;
        }
        claims.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])});
      }
      return new JoinCheckpoint(watermark, claims.toArray(new long[0][]), history);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The entries of a field {@code h=...}, or {@code null} if it is not one: quiet-period raises
   * only, as {@link WallClockHistory#invalid} checks them (a join takes no guard readings).
   */
  private static String history(String field) {
    if (!field.startsWith("h=")) {
      return null;
    }
    String entries = field.substring(2);
    boolean valid =
        WallClockHistory.invalid(entries) == null && entries.indexOf(WallClockHistory.GUARD) < 0;
    return valid ? entries : null;
  }

  @Override
  public String toString() {
    return encode();
  }
}
