package io.github.lowwater.align;

import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.internal.Checks;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * Ordered release over several sources: events are pushed as they arrive, buffered per source, and
 * released once the watermark has passed them, in one deterministic order (event time, then source,
 * then offset), whatever order the sources were drained in. Events that arrive behind the watermark
 * go to a late handler: counted, never silently dropped.
 *
 * <p><b>Not thread-safe for writes; confine every mutating call to one thread.</b> {@link
 * #watermark()}, {@link #buffered()} and {@link #stats()} may be read from any thread. A push costs
 * O(log events buffered for its source + log sources); a release costs the same per event released
 * (per-source buffers merged through a heap of their heads, never a re-sort). Each buffered event
 * is one small object. Memory is every event pushed and not yet released: the events at or above
 * the watermark, which the slowest active source holds back; in a catch-up whose partitions drain
 * unevenly that is the whole skew between them (the benchmarks measured 190,000 to 770,000 buffered
 * events), not just the lateness window. {@link #buffered()} reports it. No threads are started.
 *
 * <h2>Rules</h2>
 *
 * <ol>
 *   <li>The watermark is that of a {@link WatermarkTracker} fed with every pushed event; W asserts
 *       that every event still to come has an event time {@code >= W}.
 *   <li>An event is <em>late</em> iff {@code eventTimeMillis < watermark} at its push (judged
 *       before its own observation). It is counted, observed as activity of its source, and handed
 *       to the late handler; it is never released. Events at or above the watermark are buffered.
 *   <li>{@link #release} hands over, in ascending (event time, source, offset) order, every
 *       buffered event with {@code eventTimeMillis < watermark}, each exactly once. Since no later
 *       event can fall below the watermark without being late, the concatenation of all releases is
 *       sorted. Ties on all three keys are released in push order.
 *   <li>{@link #remove} takes a source out of the watermark but keeps its buffered events: they are
 *       released as the watermark passes them.
 * </ol>
 *
 * @param <S> the source type: {@link Comparable}, or ordered by {@link Builder#sourceOrder}
 * @param <P> the payload type
 */
public final class EventAligner<S, P> {

  private static final VarHandle BUFFERED;
  private static final VarHandle LATE;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      BUFFERED = lookup.findVarHandle(EventAligner.class, "buffered", int.class);
      LATE = lookup.findVarHandle(EventAligner.class, "late", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final WatermarkTracker tracker;
  private final Comparator<? super S> sourceOrder;
  private final AlignedEventHandler<? super S, ? super P> lateHandler;
  private final HashMap<S, Buffer<S, P>> buffers = new HashMap<>();

  /** The non-empty buffers, a binary min-heap ordered by their head event. */
  @SuppressWarnings({"unchecked", "rawtypes"}) // generic array creation
  private Buffer<S, P>[] heap = new Buffer[8];

  private int heapSize;
  private long pushSequence;
  private int buffered;
  private long late;

  private EventAligner(Builder<S, P> builder) {
    this.tracker = builder.tracker.build();
    this.sourceOrder = builder.sourceOrder;
    this.lateHandler = builder.lateHandler;
  }

  /**
   * Returns a builder. The allowed lateness and idle timeout default to 120 seconds each, the clock
   * to {@link Clock#system()}, the source order to the sources' natural order.
   *
   * @param <S> the source type
   * @param <P> the payload type
   * @return a new builder
   */
  public static <S, P> Builder<S, P> builder() {
    return new Builder<>();
  }

  /**
   * Pushes an event: buffers it, or hands it to the late handler if it is behind the watermark;
   * then observes it, which may move the watermark. Call {@link #release} to take what is ready.
   *
   * @param source the event's source
   * @param offset the event's offset within its source (the Kafka offset): the last sort key
   * @param eventTimeMillis the event time in epoch milliseconds
   * @param payload the payload; may be null
   * @return {@code true} if buffered, {@code false} if late
   * @throws NullPointerException if {@code source} is null; nothing changes
   * @throws IllegalArgumentException if no source order was set and {@code source} is not {@link
   *     Comparable}; nothing changes
   */
  public boolean push(S source, long offset, long eventTimeMillis, P payload) {
    Objects.requireNonNull(source, "source");
    if (sourceOrder == null && !(source instanceof Comparable)) {
      throw new IllegalArgumentException(
          "source must be Comparable, or set Builder.sourceOrder: "
              + source
              + " ("
              + source.getClass().getName()
              + ")");
    }
    if (eventTimeMillis < tracker.watermark()) {
      LATE.setRelease(this, late + 1);
      tracker.observe(source, eventTimeMillis);
      if (lateHandler != null) {
        lateHandler.onEvent(source, offset, eventTimeMillis, payload);
      }
      return false;
    }
    Buffer<S, P> b = buffers.get(source);
    if (b == null) {
      b = new Buffer<>(source);
      buffers.put(source, b);
    }
    Event<P> e = new Event<>(eventTimeMillis, offset, pushSequence++, payload);
    Event<P> head = b.events.peek();
    b.events.add(e);
    BUFFERED.setRelease(this, buffered + 1);
    if (b.heapIndex < 0) {
      heapInsert(b);
    } else if (head != e && b.events.peek() == e) {
      siftUp(b.heapIndex, b); // a new, earlier head
    }
    tracker.observe(source, eventTimeMillis);
    return true;
  }

  /**
   * Releases every buffered event below the watermark, in ascending (event time, source, offset)
   * order, each exactly once. An exception from the handler propagates; the event it was handed
   * counts as released, the rest stay buffered for the next call.
   *
   * @param handler receives the events
   * @return the number of events released
   * @throws NullPointerException if {@code handler} is null
   */
  public int release(AlignedEventHandler<? super S, ? super P> handler) {
    Objects.requireNonNull(handler, "handler");
    long watermark = tracker.watermark();
    int released = 0;
    while (heapSize > 0) {
      Buffer<S, P> b = heap[0];
      Event<P> e = b.events.peek();
      if (e.eventTimeMillis >= watermark) {
        break;
      }
      b.events.poll();
      BUFFERED.setRelease(this, buffered - 1);
      if (b.events.isEmpty()) {
        heapRemoveRoot();
      } else {
        siftDown(0, b);
      }
      released++;
      handler.onEvent(b.source, e.offset, e.eventTimeMillis, e.payload);
    }
    return released;
  }

  /**
   * Declares an expected source; see {@link WatermarkTracker#register(Object)}.
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void register(S source) {
    tracker.register(source);
  }

  /**
   * Takes a source out of the watermark; its buffered events stay and are released as the watermark
   * passes them. See {@link WatermarkTracker#remove(Object)}.
   *
   * @param source the source
   * @return {@code true} if the source was known to the watermark
   * @throws NullPointerException if {@code source} is null
   */
  public boolean remove(S source) {
    return tracker.remove(source);
  }

  /**
   * Records activity of a source without an event; see {@link WatermarkTracker#heartbeat(Object)}.
   *
   * @param source the source
   * @throws NullPointerException if {@code source} is null
   */
  public void heartbeat(S source) {
    tracker.heartbeat(source);
  }

  /** Re-evaluates idleness and the watermark; see {@link WatermarkTracker#refresh()}. */
  public void refresh() {
    tracker.refresh();
  }

  /**
   * The all-quiet hook; see {@link WatermarkTracker#advanceTo(long)}.
   *
   * @param wallMillis the wall-clock time in epoch milliseconds
   */
  public void advanceTo(long wallMillis) {
    tracker.advanceTo(wallMillis);
  }

  /**
   * Returns the watermark; no side effect, any thread.
   *
   * @return the watermark in epoch milliseconds, or {@link WatermarkTracker#NO_WATERMARK}
   */
  public long watermark() {
    return tracker.watermark();
  }

  /**
   * Returns the number of events buffered and not released yet; no side effect, any thread.
   *
   * @return the number of buffered events
   */
  public int buffered() {
    return (int) BUFFERED.getAcquire(this);
  }

  /**
   * Returns a snapshot of the counters; no side effect, any thread.
   *
   * @return the late and buffered events and the watermark
   */
  public AlignerStats stats() {
    return new AlignerStats((long) LATE.getAcquire(this), buffered(), watermark());
  }

  @Override
  public String toString() {
    return "EventAligner{watermark=" + watermark() + ", buffered=" + buffered() + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // The heap of non-empty buffers, ordered by head event.

  @SuppressWarnings("unchecked")
  private int compareSources(S a, S b) {
    if (a == b) {
      return 0;
    }
    return sourceOrder != null ? sourceOrder.compare(a, b) : ((Comparable<Object>) a).compareTo(b);
  }

  private boolean before(Buffer<S, P> a, Buffer<S, P> b) {
    Event<P> x = a.events.peek();
    Event<P> y = b.events.peek();
    if (x.eventTimeMillis != y.eventTimeMillis) {
      return x.eventTimeMillis < y.eventTimeMillis;
    }
    int bySource = compareSources(a.source, b.source);
    if (bySource != 0) {
      return bySource < 0;
    }
    return x.compareTo(y) < 0; // same source object order: offset, then push order
  }

  private void heapInsert(Buffer<S, P> b) {
    if (heapSize == heap.length) {
      heap = Arrays.copyOf(heap, heapSize * 2);
    }
    siftUp(heapSize++, b);
  }

  private void heapRemoveRoot() {
    Buffer<S, P> root = heap[0];
    root.heapIndex = -1;
    Buffer<S, P> last = heap[--heapSize];
    heap[heapSize] = null;
    if (heapSize > 0) {
      siftDown(0, last);
    }
  }

  private void siftUp(int index, Buffer<S, P> b) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      Buffer<S, P> p = heap[parent];
      if (!before(b, p)) {
        break;
      }
      heap[index] = p;
      p.heapIndex = index;
      index = parent;
    }
    heap[index] = b;
    b.heapIndex = index;
  }

  private void siftDown(int index, Buffer<S, P> b) {
    int half = heapSize >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      Buffer<S, P> c = heap[child];
      int right = child + 1;
      if (right < heapSize && before(heap[right], c)) {
        child = right;
        c = heap[child];
      }
      if (!before(c, b)) {
        break;
      }
      heap[index] = c;
      c.heapIndex = index;
      index = child;
    }
    heap[index] = b;
    b.heapIndex = index;
  }

  /** One source's buffered events, ordered by (event time, offset, push order). */
  private static final class Buffer<S, P> {
    final S source;
    final PriorityQueue<Event<P>> events = new PriorityQueue<>();
    int heapIndex = -1;

    Buffer(S source) {
      this.source = source;
    }
  }

  /** A buffered event. */
  private static final class Event<P> implements Comparable<Event<P>> {
    final long eventTimeMillis;
    final long offset;
    final long sequence;
    final P payload;

    Event(long eventTimeMillis, long offset, long sequence, P payload) {
      this.eventTimeMillis = eventTimeMillis;
      this.offset = offset;
      this.sequence = sequence;
      this.payload = payload;
    }

    @Override
    public int compareTo(Event<P> o) {
      if (eventTimeMillis != o.eventTimeMillis) {
        return Long.compare(eventTimeMillis, o.eventTimeMillis);
      }
      if (offset != o.offset) {
        return Long.compare(offset, o.offset);
      }
      return Long.compare(sequence, o.sequence);
    }
  }

  /**
   * Configures an {@link EventAligner}. Every option is optional and may be set at most once:
   * setting one twice throws {@link IllegalStateException}. Not thread-safe.
   *
   * @param <S> the source type
   * @param <P> the payload type
   */
  public static final class Builder<S, P> {
    private final WatermarkTracker.Builder tracker = WatermarkTracker.builder();
    private Comparator<? super S> sourceOrder;
    private AlignedEventHandler<? super S, ? super P> lateHandler;

    private Builder() {}

    /**
     * Sets the allowed lateness; see {@link WatermarkTracker.Builder#allowedLateness(Duration)}.
     *
     * @param allowedLateness the allowed lateness, {@code >= 0}
     * @return this builder
     * @throws NullPointerException if {@code allowedLateness} is null
     * @throws IllegalArgumentException if {@code allowedLateness} is negative
     * @throws IllegalStateException if the allowed lateness was already set
     */
    public Builder<S, P> allowedLateness(Duration allowedLateness) {
      tracker.allowedLateness(allowedLateness);
      return this;
    }

    /**
     * Sets the idle timeout; see {@link WatermarkTracker.Builder#idleTimeout(Duration)}.
     *
     * @param idleTimeout the idle timeout, {@code > 0}
     * @return this builder
     * @throws NullPointerException if {@code idleTimeout} is null
     * @throws IllegalArgumentException if {@code idleTimeout} is zero or negative
     * @throws IllegalStateException if the idle timeout was already set
     */
    public Builder<S, P> idleTimeout(Duration idleTimeout) {
      tracker.idleTimeout(idleTimeout);
      return this;
    }

    /**
     * Sets the clock; default {@link Clock#system()}.
     *
     * @param clock the clock
     * @return this builder
     * @throws NullPointerException if {@code clock} is null
     * @throws IllegalStateException if the clock was already set
     */
    public Builder<S, P> clock(Clock clock) {
      tracker.clock(clock);
      return this;
    }

    /**
     * Sets the order of sources among events with equal event times. Default: the sources' natural
     * order (they must then be {@link Comparable}). For Kafka: {@code
     * Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)}.
     *
     * @param sourceOrder a total order of the sources, consistent with {@code equals}
     * @return this builder
     * @throws NullPointerException if {@code sourceOrder} is null
     * @throws IllegalStateException if the source order was already set
     */
    public Builder<S, P> sourceOrder(Comparator<? super S> sourceOrder) {
      Objects.requireNonNull(sourceOrder, "sourceOrder");
      Checks.requireUnset(this.sourceOrder == null, "sourceOrder", this.sourceOrder);
      this.sourceOrder = sourceOrder;
      return this;
    }

    /**
     * Sets the late path. Without one, late events are only counted ({@link EventAligner#stats()}).
     *
     * @param lateEventHandler receives every late event
     * @return this builder
     * @throws NullPointerException if {@code lateEventHandler} is null
     * @throws IllegalStateException if a late handler was already set
     */
    public Builder<S, P> lateEventHandler(
        AlignedEventHandler<? super S, ? super P> lateEventHandler) {
      Objects.requireNonNull(lateEventHandler, "lateEventHandler");
      Checks.requireUnset(this.lateHandler == null, "lateEventHandler", this.lateHandler);
      this.lateHandler = lateEventHandler;
      return this;
    }

    /**
     * Builds the aligner, with no source, nothing buffered and no watermark.
     *
     * @return a new aligner
     */
    public EventAligner<S, P> build() {
      return new EventAligner<>(this);
    }
  }
}
