package io.github.lowwater.kafka;

import io.github.lowwater.WatermarkTracker;

/**
 * What a partition's next owner needs, carried in the metadata of the partition's committed offset
 * ({@code OffsetAndMetadata.metadata()}), and its text codec. Immutable; any thread.
 *
 * <p>The format is one line of ASCII, in two versions:
 *
 * <ul>
 *   <li>{@code lw1;e=<long>;f=<long>;w=<long>;n=<long>}: written by windows without panes, so that
 *       an instance of an older version reads what a newer one commits during a rolling upgrade;
 *   <li>{@code lw2;e=<long>;f=<long>;w=<long>;n=<long>;g=<long>;p=<long>}: written by windows with
 *       early results or a grace period; {@code e} then means <em>retired</em> through (every
 *       window ending by it has had all its rows, late updates included, returned), and {@code g}
 *       and {@code p} are the writer's grace period and early-results period, so that a reader
 *       built with others can say that its rows will differ.
 * </ul>
 *
 * <p>After {@code n}, either version has the field {@code o=<long>}: the offset the checkpoint was
 * committed with, so that a reader can tell a checkpoint carried to another offset (MirrorMaker 2's
 * offset translation to another cluster copies the metadata unchanged; a tool may recommit another
 * offset with it) from its own: the other fields then name offsets of another log, and the reader
 * does not use them. It is optional on reading (checkpoints written before it are taken as they
 * are). Then, only after a partition's history began without a usable checkpoint, the field {@code
 * i=<long>}: the rows of windows starting before it may lack records (see {@link MissingRecords}),
 * so the next owner marks them too.
 *
 * <p>Then, in either version, the writer's configuration as far as it decides which records are
 * late (issue 45, item 1): {@code l=<long>}, its allowed lateness in milliseconds, and, only with
 * the future guard on, {@code s=<long>}, its {@code maxFutureSkew}. A reader whose own differ (or
 * whose grace period or early results differ from {@code g} and {@code p}) knows that the records
 * it re-reads below {@code n} are judged otherwise than its predecessor judged them, and takes none
 * of its predecessor's verdicts for them on trust. Without {@code l} (a checkpoint written before
 * it), the configuration is taken to be the reader's.
 *
 * <p>Either version may end with an optional field {@code h=<entries>}: the wall-clock decisions
 * the partition's owners took between the committed offset and {@code n} ({@link WallClockHistory}:
 * quiet-period raises {@code q<offset>:<watermark>} and future-guard readings {@code
 * c<offset>:<wall>}, comma-separated, in offset order, at most {@link
 * WallClockHistory#MAX_ENTRIES}), which the next owner replays at the same records. It is written
 * only when there is such a decision: a version of the library older than the field reads a
 * checkpoint with it as unreadable (see docs/kafka.md, "Upgrading").
 *
 * <p>The fields come in any order, each exactly once, decimal {@code long}s ({@link
 * WatermarkTracker#NO_WATERMARK} for "none"). At most {@link #MAX_LENGTH} characters, under the
 * broker's 4,096-byte default {@code offset.metadata.max.bytes}. {@link #parse} reads both versions
 * and rejects anything else with a {@link CheckpointFormatException}, never with another exception:
 * another tool may have committed on the same group, and a later version of this library may write
 * {@code lw3}.
 *
 * @param writtenThroughMillis every window of the partition that ends at or before this has been
 *     written and retired (all its results returned before the commit): a record of such a window
 *     is redelivered
 * @param frontierMillis the largest event time of the partition's records before the committed
 *     offset, as far as its owners saw
 * @param watermarkMillis the partition's watermark as of the committed offset: the next owner
 *     starts from it, so that it judges the re-read records as the previous owner did
 * @param readThroughOffset the offset after the last record the committing owner had read: a record
 *     of a written window below it is redelivered, one at or after it is truly late
 * @param graceMillis the writer's grace period, 0 in version 1
 * @param earlyMillis the writer's period of early results, 0 for none (and in version 1)
 * @param history the encoded {@link WallClockHistory} entries, empty for none
 * @param committedOffset the offset the checkpoint was committed with ({@code o}), or {@link
 *     #UNRECORDED} when it was written without the field
 * @param incompleteBeforeMillis rows of windows starting before it may lack records ({@code i}), or
 *     {@link #COMPLETE} (no such window)
 * @param latenessMillis the writer's allowed lateness ({@code l}), or {@link #UNRECORDED}
 * @param futureSkewMillis the writer's {@code maxFutureSkew} ({@code s}), or {@link #NO_GUARD} when
 *     its guard was off or the checkpoint does not say ({@code l} absent)
 */
record Checkpoint(
    long writtenThroughMillis,
    long frontierMillis,
    long watermarkMillis,
    long readThroughOffset,
    long graceMillis,
    long earlyMillis,
    String history,
    long committedOffset,
    long incompleteBeforeMillis,
    long latenessMillis,
    long futureSkewMillis) {

  /** {@link #committedOffset()} or {@link #latenessMillis()} of a checkpoint written without it. */
  static final long UNRECORDED = -1;

  /** {@link #futureSkewMillis()} of a writer without the future guard. */
  static final long NO_GUARD = -1;

  /** {@link #incompleteBeforeMillis()} when every row is complete. */
  static final long COMPLETE = Long.MIN_VALUE;

  /** The version tag of a checkpoint without panes. */
  static final String VERSION = "lw1";

  /** The version tag of a checkpoint with panes. */
  static final String VERSION_2 = "lw2";

  /**
   * The longest encoded form, 901 characters: {@code lw2}; four signed fields ({@code e}, {@code
   * f}, {@code w}, {@code i}: {@code ;x=}, a sign and 19 digits) and six non-negative ones ({@code
   * n}, {@code o}, {@code l}, {@code s}, {@code g}, {@code p}: 19 digits); and {@code ;h=} with
   * {@link WallClockHistory#MAX_ENTRIES} entries of a kind, a non-negative offset, a colon and a
   * signed value, between commas. Under the broker's 4,096-byte default {@code
   * offset.metadata.max.bytes}.
   */
  static final int MAX_LENGTH =
      VERSION_2.length()
          + 4 * (3 + 20)
          + 6 * (3 + 19)
          + 3
          + WallClockHistory.MAX_ENTRIES * (1 + 19 + 1 + 20)
          + WallClockHistory.MAX_ENTRIES
          - 1;

  static final Checkpoint NONE =
      new Checkpoint(
          WatermarkTracker.NO_WATERMARK,
          WatermarkTracker.NO_WATERMARK,
          WatermarkTracker.NO_WATERMARK,
          0);

  /** A checkpoint without panes (version 1). */
  Checkpoint(
      long writtenThroughMillis,
      long frontierMillis,
      long watermarkMillis,
      long readThroughOffset) {
    this(writtenThroughMillis, frontierMillis, watermarkMillis, readThroughOffset, 0, 0, "");
  }

  /** A checkpoint without the offset it is committed with and without incomplete rows. */
  Checkpoint(
      long writtenThroughMillis,
      long frontierMillis,
      long watermarkMillis,
      long readThroughOffset,
      long graceMillis,
      long earlyMillis,
      String history) {
    this(
        writtenThroughMillis,
        frontierMillis,
        watermarkMillis,
        readThroughOffset,
        graceMillis,
        earlyMillis,
        history,
        UNRECORDED,
        COMPLETE,
        UNRECORDED,
        NO_GUARD);
  }

  /** A checkpoint without history. */
  Checkpoint(
      long writtenThroughMillis,
      long frontierMillis,
      long watermarkMillis,
      long readThroughOffset,
      long graceMillis,
      long earlyMillis) {
    this(
        writtenThroughMillis,
        frontierMillis,
        watermarkMillis,
        readThroughOffset,
        graceMillis,
        earlyMillis,
        "");
  }

  /** Returns whether it was written by windows with panes: version 2. */
  boolean paned() {
    return graceMillis != 0 || earlyMillis != 0;
  }

  /**
   * Returns the metadata string: version 1 without panes, version 2 with.
   *
   * @return the encoded checkpoint, at most {@link #MAX_LENGTH} characters
   */
  String encode() {
    String v1 =
        ";e="
            + writtenThroughMillis
            + ";f="
            + frontierMillis
            + ";w="
            + watermarkMillis
            + ";n="
            + readThroughOffset
            + (committedOffset == UNRECORDED ? "" : ";o=" + committedOffset)
            + (incompleteBeforeMillis == COMPLETE ? "" : ";i=" + incompleteBeforeMillis)
            + (latenessMillis == UNRECORDED ? "" : ";l=" + latenessMillis)
            + (futureSkewMillis == NO_GUARD ? "" : ";s=" + futureSkewMillis);
    String h = history.isEmpty() ? "" : ";h=" + history;
    return paned()
        ? VERSION_2 + v1 + ";g=" + graceMillis + ";p=" + earlyMillis + h
        : VERSION + v1 + h;
  }

  /**
   * Returns whether it may be used for a partition whose offset was committed at {@code offset}:
   * unless it records another offset (it was carried there from another log).
   */
  boolean describes(long offset) {
    return committedOffset == UNRECORDED || committedOffset == offset;
  }

  /** The same checkpoint committed with {@code offset}, its rows incomplete before {@code i}. */
  Checkpoint at(long offset, long incompleteBefore) {
    return new Checkpoint(
        writtenThroughMillis,
        frontierMillis,
        watermarkMillis,
        readThroughOffset,
        graceMillis,
        earlyMillis,
        history,
        offset,
        incompleteBefore,
        latenessMillis,
        futureSkewMillis);
  }

  /** The same checkpoint with the writer's configuration ({@code l} and {@code s}). */
  Checkpoint configured(long lateness, long futureSkew) {
    return new Checkpoint(
        writtenThroughMillis,
        frontierMillis,
        watermarkMillis,
        readThroughOffset,
        graceMillis,
        earlyMillis,
        history,
        committedOffset,
        incompleteBeforeMillis,
        lateness,
        futureSkew);
  }

  /**
   * Returns whether windows with these options judge the records below {@code n} as the writer did:
   * the same grace period and early results, and, where the checkpoint records them, the same
   * allowed lateness and future guard. Without {@code l} the configuration is taken to be the same.
   */
  boolean sameJudgement(long grace, long early, long lateness, long futureSkew) {
    return graceMillis == grace
        && earlyMillis == early
        && (latenessMillis == UNRECORDED
            || (latenessMillis == lateness && futureSkewMillis == futureSkew));
  }

  /**
   * Parses metadata written by {@link #encode()}, of either version. Null or empty metadata (an
   * offset committed without a checkpoint) is {@link #NONE}.
   *
   * @param metadata the committed metadata
   * @return the checkpoint
   * @throws CheckpointFormatException if the metadata is not a checkpoint of version 1 or 2
   */
  static Checkpoint parse(String metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return NONE;
    }
    if (metadata.length() > MAX_LENGTH) {
      throw new CheckpointFormatException(metadata, "longer than " + MAX_LENGTH + " characters");
    }
    String[] parts = metadata.split(";", -1);
    boolean v2 = VERSION_2.equals(parts[0]);
    if (!v2 && !VERSION.equals(parts[0])) {
      throw new CheckpointFormatException(
          metadata, "does not start with " + VERSION + "; or " + VERSION_2 + ";");
    }
    int fields = v2 ? 6 : 4;
    if (parts.length < fields + 1 || parts.length > fields + 6) {
      throw new CheckpointFormatException(
          metadata, "expected " + fields + " fields, found " + (parts.length - 1));
    }
    // The required fields first, then the optional ones: h, o, i, l, s.
    String names = v2 ? "efwngphoils" : "efwnhoils";
    long[] values = new long[6];
    long committedOffset = UNRECORDED;
    long incompleteBefore = COMPLETE;
    long lateness = UNRECORDED;
    long futureSkew = NO_GUARD;
    String history = "";
    int seen = 0;
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i];
      if (part.length() < 3 || part.charAt(1) != '=') {
        throw new CheckpointFormatException(metadata, "field " + i + " is not <name>=<value>");
      }
      char name = part.charAt(0);
      int field = names.indexOf(name);
      if (field < 0) {
        throw new CheckpointFormatException(metadata, "unknown field '" + name + "'");
      }
      if ((seen & (1 << field)) != 0) {
        throw new CheckpointFormatException(metadata, "field '" + name + "' twice");
      }
      seen |= 1 << field;
      if (name == 'h') {
        history = part.substring(2);
        String invalid = WallClockHistory.invalid(history);
        if (invalid != null) {
          throw new CheckpointFormatException(metadata, invalid);
        }
      } else if (name == 'o') {
        committedOffset = parseLong(metadata, name, part.substring(2));
        if (committedOffset < 0) {
          throw new CheckpointFormatException(metadata, "field 'o' is negative");
        }
      } else if (name == 'i') {
        incompleteBefore = parseLong(metadata, name, part.substring(2));
      } else if (name == 'l' || name == 's') {
        long value = parseLong(metadata, name, part.substring(2));
        if (value < 0) {
          throw new CheckpointFormatException(metadata, "field '" + name + "' is negative");
        }
        if (name == 'l') {
          lateness = value;
        } else {
          futureSkew = value;
        }
      } else {
        values[field] = parseLong(metadata, name, part.substring(2));
      }
    }
    int required = (1 << fields) - 1;
    if ((seen & required) != required) {
      throw new CheckpointFormatException(
          metadata, "expected " + fields + " fields and the optional 'h', 'o', 'i', 'l' and 's'");
    }
    if ((seen & (1 << names.indexOf('s'))) != 0 && (seen & (1 << names.indexOf('l'))) == 0) {
      throw new CheckpointFormatException(metadata, "field 's' without 'l'");
    }
    for (int field = 3; field < fields; field++) {
      if (values[field] < 0) {
        throw new CheckpointFormatException(
            metadata, "field '" + names.charAt(field) + "' is negative");
      }
    }
    return new Checkpoint(
        values[0],
        values[1],
        values[2],
        values[3],
        values[4],
        values[5],
        history,
        committedOffset,
        incompleteBefore,
        lateness,
        futureSkew);
  }

  private static long parseLong(String metadata, char name, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-' && text.length() > 1)) {
        throw new CheckpointFormatException(metadata, "field '" + name + "' is not a long");
      }
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException ex) {
      throw new CheckpointFormatException(metadata, "field '" + name + "' is out of range");
    }
  }
}
