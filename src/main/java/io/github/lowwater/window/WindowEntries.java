package io.github.lowwater.window;

import java.util.Arrays;
import java.util.Comparator;

/**
 * One window's bounds and its (key, accumulator) entries, in the order of each key's first event,
 * in one of two forms chosen when the window opens (an indexed window of {@code long}s may turn
 * dense once, when its index would grow while it holds half of the dictionary's ids):
 *
 * <ul>
 *   <li><b>Indexed</b>: an {@link IdIndex} from key id to position, and the accumulators by
 *       position: a {@code long[]} for a built-in {@code long} aggregator ({@link LongFold}), an
 *       {@code Object[]} for any other {@link Aggregator}. About 24 bytes an entry with {@code
 *       long}s, whatever share of the dictionary's keys the window holds.
 *   <li><b>Dense</b> ({@code long} accumulators only): the accumulators by key id in a {@code
 *       long[]} as long as the dictionary's id range, and an {@link IdSet} of the ids present. One
 *       array access per event instead of a probe and an access; chosen when the window is expected
 *       to hold at least half of the dictionary's ids, where it costs at most 16 bytes plus 4 an
 *       entry.
 * </ul>
 *
 * <p>An instance is reused for window after window ({@link #reset}); once its arrays are large
 * enough, opening, filling and emitting a window allocates nothing. Not thread-safe.
 */
final class WindowEntries {

  long start;
  long end;

  /** For a finalized hopping window: whether it holds its panes' combination yet. */
  boolean combined;

  /**
   * With early results: the next early mark of the window (rule 50), {@link #NO_MARK} if none is
   * left, or {@link #MARK_UNSET} until its kind sets it.
   */
  long nextMarkMillis;

  static final long NO_MARK = Long.MAX_VALUE;

  /** Windows by start; for windows of one width, also by end. */
  static final Comparator<WindowEntries> BY_START = (a, b) -> Long.compare(a.start, b.start);

  /** Windows by end. */
  static final Comparator<WindowEntries> BY_END = (a, b) -> Long.compare(a.end, b.end);

  static final long MARK_UNSET = Long.MIN_VALUE;

  /**
   * With a grace period judged per source (rule 72): the window's held correction, the events
   * within its grace period for their own source, kept apart from the on-time ones until the window
   * retires; null while there is none. Owned by {@link PanedStore}.
   */
  WindowEntries correction;

  /** With panes: each key's rows; null without (and then the window may turn dense). */
  final PaneMarks marks;

  private final boolean primitive;
  private boolean dense;

  // The indexed form.
  private IdIndex index;
  private long[] longs;
  private Object[] objects;

  // The dense form.
  private IdSet ids;
  private long[] longsById;

  /**
   * Creates an empty window; {@link #reset} it before use.
   *
   * @param primitive whether the accumulators are {@code long}s ({@link LongFold})
   */
  WindowEntries(boolean primitive) {
    this(primitive, false);
  }

  /**
   * Creates an empty window; {@link #reset} it before use.
   *
   * @param primitive whether the accumulators are {@code long}s ({@link LongFold})
   * @param paned whether its rows are panes ({@link PaneMarks}, by entry position while the window
   *     is indexed, by key id once it is dense)
   */
  WindowEntries(boolean primitive, boolean paned) {
    this.primitive = primitive;
    this.marks = paned ? new PaneMarks(primitive) : null;
  }

  /**
   * Makes this the empty window {@code [start, end)}, sized for {@code expectedKeys} of the
   * dictionary's ids, all below {@code idBound}.
   */
  WindowEntries reset(long start, long end, int expectedKeys, int idBound) {
    dropAccumulators();
    this.correction = null;
    this.start = start;
    this.end = end;
    this.nextMarkMillis = MARK_UNSET;
    if (marks != null) {
      marks.clear();
    }
    dense = primitive && expectedKeys > 0 && 2L * expectedKeys >= idBound;
    if (dense) {
      emptyDenseForm(idBound, expectedKeys);
      if (index != null && index.size() > 0) {
        index.clear(0); // the indexed form's table is not needed while dense
      }
    } else if (index == null) {
      index = new IdIndex(expectedKeys);
      int length = Math.max(16, expectedKeys);
      if (primitive) {
        longs = new long[length];
      } else {
        objects = new Object[length];
      }
    } else {
      index.clear(expectedKeys);
    }
    return this;
  }

  /** Lets the accumulator objects go, so that a window kept for reuse holds no garbage. */
  void dropAccumulators() {
    if (objects != null) {
      Arrays.fill(objects, 0, index.size(), null);
    }
  }

  /**
   * Returns the slot of {@link #marks} of the key {@code id} at {@code position}: the position
   * while the window is indexed, the id once it is dense.
   */
  int markSlot(int position, int id) {
    return dense ? id : position;
  }

  /** Returns the entry position of key {@code id} (indexed only; for a dense window, any). */
  int positionOf(int id) {
    return dense ? 0 : index.positionOf(id);
  }

  /** Returns the number of keys. */
  int size() {
    return dense ? ids.size() : index.size();
  }

  /** Returns whether the window is in the dense form. */
  boolean dense() {
    return dense;
  }

  /**
   * Folds {@code value} into the {@code long} accumulator of key {@code id}, in the form the window
   * has; nothing changes if the fold throws.
   *
   * @return whether the key is new in this window
   */
  boolean fold(int id, Object value, LongFold fold) {
    return fold(id, value, fold, Integer.MAX_VALUE);
  }

  /**
   * Folds {@code value} into the {@code long} accumulator of key {@code id}; nothing changes if the
   * fold throws. An indexed window whose index is about to grow while it holds at least half of the
   * ids below {@code idBound} turns dense first (once, keeping first-seen order): a window that
   * turns out to hold most of the dictionary's keys, such as the first one, whose size nothing
   * predicted, then costs what a dense window costs.
   *
   * @param idBound the dictionary's {@link KeyDictionary#idBound()}
   * @return whether the key is new in this window
   */
  boolean fold(int id, Object value, LongFold fold, int idBound) {
    if (dense) {
      if (ids.contains(id)) {
        longsById[id] = fold.fold(longsById[id], value);
        return false;
      }
      addDense(id, fold.fold(fold.initial(), value));
      return true;
    }
    int position = index.positionOf(id);
    if (position >= 0) {
      longs[position] = fold.fold(longs[position], value);
      return false;
    }
    insertLong(id, position, fold.fold(fold.initial(), value), idBound);
    return true;
  }

  /**
   * Merges {@code accumulator} (of another window: a pane) into the {@code long} accumulator of key
   * {@code id}, as {@link #fold(int, Object, LongFold, int)} folds a value.
   */
  void merge(int id, long accumulator, LongFold fold, int idBound) {
    if (dense) {
      if (ids.contains(id)) {
        longsById[id] = fold.merge(longsById[id], accumulator);
      } else {
        addDense(id, fold.merge(fold.initial(), accumulator));
      }
      return;
    }
    int position = index.positionOf(id);
    if (position >= 0) {
      longs[position] = fold.merge(longs[position], accumulator);
    } else {
      insertLong(id, position, fold.merge(fold.initial(), accumulator), idBound);
    }
  }

  /** Inserts a new key at the index's free {@code position}, turning dense first if it is time. */
  private void insertLong(int id, int position, long accumulator, int idBound) {
    if (index.growsOnNextInsert() && 2L * (index.size() + 1) >= idBound) {
      densify(idBound);
      addDense(id, accumulator);
      return;
    }
    position = index.insert(id, position);
    if (position == longs.length) {
      longs = Arrays.copyOf(longs, position + (position >>> 1));
    }
    longs[position] = accumulator;
  }

  private void addDense(int id, long accumulator) {
    putById(id, accumulator);
    ids.add(id);
  }

  /** Writes the accumulator of {@code id} in the dense form, growing its array if needed. */
  private void putById(int id, long accumulator) {
    if (id >= longsById.length) {
      longsById = Arrays.copyOf(longsById, Math.max(id + 1, longsById.length * 2));
    }
    longsById[id] = accumulator;
  }

  /** Makes the dense form's set empty, creating its arrays the first time. */
  private void emptyDenseForm(int idBound, int expectedKeys) {
    if (ids == null) {
      ids = new IdSet(idBound, expectedKeys);
      longsById = new long[Math.max(16, idBound)];
    } else {
      ids.clear(); // what an earlier dense window left
    }
  }

  /** Moves the indexed entries, in position order, to the dense form. */
  private void densify(int idBound) {
    int size = index.size();
    emptyDenseForm(idBound, size);
    ids.addAll(index);
    for (int position = 0; position < size; position++) {
      putById(ids.idAt(position), longs[position]);
    }
    index.clear(0);
    dense = true;
    if (marks != null) {
      marks.rekeyByIds(ids); // the marks went by position: from now on by key id
    }
  }

  /**
   * Folds {@code value} into the accumulator object of key {@code id}; nothing changes if the
   * aggregator throws.
   *
   * @return whether the key is new in this window
   */
  boolean fold(int id, Object value, Aggregator<Object, Object, ?> aggregator) {
    int position = index.positionOf(id);
    if (position >= 0) {
      if (marks != null && marks.isShared(position)) {
        // A row refers to this accumulator: fold into a copy, so that the row keeps its value.
        Object copy = aggregator.merge(aggregator.create(), objects[position]);
        objects[position] = aggregator.add(copy, value);
        marks.unshare(position);
        return false;
      }
      objects[position] = aggregator.add(objects[position], value);
      return false;
    }
    insertObject(id, position, aggregator.add(aggregator.create(), value));
    return true;
  }

  /**
   * Folds {@code value} into the accumulator of key {@code id}: the {@code long} one if {@code
   * longFold} is not null, else the object one; nothing changes if the fold throws.
   *
   * @return whether the key is new in this window
   */
  /**
   * Loads what the folds of {@code ids[0, n)} will read (the index slot, or in the dense form the
   * accumulator), without changing anything: see {@link IdIndex#touch}. Negative ids are skipped.
   */
  long touch(int[] ids, int n) {
    if (!dense) {
      return index.touch(ids, n);
    }
    long[] byId = longsById;
    if (byId == null) {
      return 0;
    }
    long sum = 0;
    for (int j = 0; j < n; j++) {
      int id = ids[j];
      if (id >= 0 && id < byId.length) {
        sum += byId[id];
      }
    }
    return sum;
  }

  boolean foldValue(
      int id,
      Object value,
      LongFold longFold,
      Aggregator<Object, Object, ?> aggregator,
      int idBound) {
    return longFold != null ? fold(id, value, longFold, idBound) : fold(id, value, aggregator);
  }

  // A fold into several windows at once, in two halves: find and compute, then put.

  /**
   * Finds key {@code id}: a number {@code >= 0} if the window holds it, negative if not, to pass to
   * the {@code *Found} methods below before the window changes.
   */
  int find(int id) {
    if (dense) {
      return ids.contains(id) ? id : -1;
    }
    return index.positionOf(id);
  }

  /** Returns the {@code long} accumulator of key {@code id}, which {@link #find} found. */
  long longFound(int found, int id) {
    return dense ? longsById[id] : longs[found];
  }

  /** Returns the accumulator object of a key that {@link #find} found. */
  Object objectFound(int found) {
    return objects[found];
  }

  /**
   * Sets the {@code long} accumulator of key {@code id} to {@code accumulator}, computed from
   * {@link #longFound} (or from the initial one, for a key not found) by a fold that cannot fail
   * any more: the second half of a fold into several windows.
   *
   * @param found what {@link #find} returned, with no change to the window since
   * @return whether the key is new in this window
   */
  boolean putLongFound(int found, int id, long accumulator, int idBound) {
    if (found >= 0) {
      if (dense) {
        longsById[id] = accumulator;
      } else {
        longs[found] = accumulator;
      }
      return false;
    }
    if (dense) {
      addDense(id, accumulator);
    } else {
      insertLong(id, found, accumulator, idBound);
    }
    return true;
  }

  /**
   * Replaces the accumulator object of key {@code id} with {@code accumulator}, a new object (a row
   * that shares the old one keeps it), or adds the key with it.
   *
   * @param found what {@link #find} returned, with no change to the window since
   * @return whether the key is new in this window
   */
  boolean putObjectFound(int found, int id, Object accumulator) {
    if (found >= 0) {
      objects[found] = accumulator;
      if (marks != null) {
        marks.unshare(found);
      }
      return false;
    }
    insertObject(id, found, accumulator);
    return true;
  }

  /**
   * Merges {@code accumulator} (of another window: a pane, which keeps it unchanged) into the
   * accumulator object of key {@code id}: a new key gets {@code merge(create(), accumulator)},
   * never the pane's own object.
   */
  void merge(int id, Object accumulator, Aggregator<Object, Object, ?> aggregator) {
    int position = index.positionOf(id);
    if (position >= 0) {
      objects[position] = aggregator.merge(objects[position], accumulator);
    } else {
      insertObject(id, position, aggregator.merge(aggregator.create(), accumulator));
    }
  }

  private void insertObject(int id, int position, Object accumulator) {
    position = index.insert(id, position);
    if (position == objects.length) {
      objects = Arrays.copyOf(objects, position + (position >>> 1));
    }
    objects[position] = accumulator;
  }

  /**
   * Merges every entry of {@code pane}, in its first-event order, into this window.
   *
   * @param idsByPosition scratch space of at least {@code pane.size()} ids
   */
  void mergeAll(
      WindowEntries pane,
      int[] idsByPosition,
      LongFold fold,
      Aggregator<Object, Object, ?> aggregator,
      int idBound) {
    int size = pane.size();
    pane.idsByPosition(idsByPosition);
    for (int position = 0; position < size; position++) {
      int id = idsByPosition[position];
      if (primitive) {
        merge(id, pane.longAt(position, id), fold, idBound);
      } else {
        merge(id, pane.objectAt(position), aggregator);
      }
    }
  }

  /** Writes the key id of each position into {@code idsByPosition}, which holds {@link #size()}. */
  void idsByPosition(int[] idsByPosition) {
    if (dense) {
      for (int position = 0; position < ids.size(); position++) {
        idsByPosition[position] = ids.idAt(position);
      }
    } else {
      index.idsByPosition(idsByPosition);
    }
  }

  /** Sets bit {@code id & 63} of {@code live[id >>> 6]} for the id of each key in the window. */
  void markIds(long[] live) {
    if (dense) {
      ids.markIds(live);
    } else {
      index.markIds(live);
    }
  }

  /** Returns the {@code long} accumulator of the key {@code id} at {@code position}. */
  long longAt(int position, int id) {
    return dense ? longsById[id] : longs[position];
  }

  /** Returns the accumulator object at {@code position}. */
  Object objectAt(int position) {
    return objects[position];
  }

  /** Returns whether the accumulators are {@code long}s. */
  boolean primitive() {
    return primitive;
  }
}
