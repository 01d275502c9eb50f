package io.github.lowwater.spring;

import io.github.lowwater.kafka.KafkaWindows;

/**
 * Told when a consumer of a {@link LowwaterListener} gets its windows, to bind meters to them: the
 * starter's auto-configuration registers one that binds {@code KafkaWindowsMetrics} to Spring
 * Boot's {@code MeterRegistry} when Micrometer is present. Called on the consumer's thread.
 */
@FunctionalInterface
public interface WindowsObserver {

  /**
   * The windows of a consumer were built, before any partition is handed to them.
   *
   * @param listener the listener (its {@code name()} and {@code groupId()})
   * @param index the consumer's index in the listener
   * @param windows the new windows
   * @return refreshed after every change of the windows' assignment, closed when they are dropped
   *     (the consumer stops, or the container makes a new consumer)
   */
  Observation windowsCreated(
      LowwaterListener<?, ?, ?, ?, ?> listener, int index, KafkaWindows<?, ?, ?> windows);

  /**
   * What an observer keeps for one consumer's windows. Used on the consumer's thread.
   *
   * <p>A lambda is its {@link #close()}: {@code (listener, index, windows) -> () -> {}} observes
   * nothing.
   */
  @FunctionalInterface
  interface Observation extends AutoCloseable {

    /**
     * Called on the consumer's thread after every assignment, revocation and loss the windows were
     * handed, and after every poll and idle tick: where {@code KafkaWindowsMetrics.refresh()} goes,
     * so that the per-partition meters follow the assignment. Should cost O(1) when the assignment
     * did not change. The default does nothing.
     */
    default void refresh() {}

    /**
     * The windows are dropped: remove what was bound to them. What it throws is logged at WARN, and
     * the consumer goes on.
     */
    @Override
    void close();
  }
}
