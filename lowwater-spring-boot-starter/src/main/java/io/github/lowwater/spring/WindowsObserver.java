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
   * The windows of a consumer were built; what is returned is closed when they are dropped (the
   * consumer stops, or the container makes a new consumer).
   *
   * @param listener the listener (its {@code name()} and {@code groupId()})
   * @param index the consumer's index in the listener
   * @param windows the new windows
   * @return closed when the windows are dropped
   */
  AutoCloseable windowsCreated(
      LowwaterListener<?, ?, ?, ?, ?> listener, int index, KafkaWindows<?, ?, ?> windows);
}
