/**
 * Micrometer meters for Lowwater: a {@link io.micrometer.core.instrument.binder.MeterBinder} per
 * facade ({@link io.github.lowwater.micrometer.WatermarkTrackerMetrics}, {@link
 * io.github.lowwater.micrometer.TumblingWindowsMetrics}, {@link
 * io.github.lowwater.micrometer.KafkaWindowsMetrics}) binding the watermark lag, the window and
 * event counts and, for Kafka, the per-partition lags, under names that start with {@code
 * lowwater.}. The meters, their units and tags are listed in {@code docs/metrics.md}.
 *
 * <p>{@code micrometer-core} is an optional dependency of this library: bring your own (built and
 * tested against 1.17.2). {@code KafkaWindowsMetrics} also needs {@code kafka-clients}. The other
 * packages do not depend on Micrometer.
 */
package io.github.lowwater.micrometer;
