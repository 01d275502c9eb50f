package io.github.lowwater.spring;

import io.github.lowwater.kafka.KafkaWindows;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * What a sink factory gets, for one consumer of a {@link LowwaterListener}: the consumer to commit
 * through (on its thread only, from the sink's {@code commit}), the windows whose rows the sink
 * takes, and the consumer's index within the listener.
 *
 * @param consumer the consumer; commit through it, call nothing else that moves positions
 * @param windows the windows of this consumer
 * @param listener the listener's name
 * @param index the consumer's index, 0 to concurrency - 1: stable across restarts of the
 *     application
 * @param <KR> the record key type
 * @param <VR> the record value type
 * @param <K> the window key type
 * @param <V> the aggregated value type
 * @param <R> the result type
 */
public record SinkContext<KR, VR, K, V, R>(
    Consumer<KR, VR> consumer, KafkaWindows<K, V, R> windows, String listener, int index) {}
