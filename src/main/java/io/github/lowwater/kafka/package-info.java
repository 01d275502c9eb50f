/**
 * The Kafka consumer integration: {@link io.github.lowwater.kafka.KafkaWindows} drives {@link
 * io.github.lowwater.window.TumblingWindows} from a plain {@code KafkaConsumer} loop, with the
 * partitions as sources, rebalances handled, optional partition alignment, the quiet-period advance
 * and the start-up seed.
 *
 * <p>{@code kafka-clients} is an optional dependency of this library: bring your own client (3.x or
 * 4.x). The other packages do not depend on Kafka.
 */
package io.github.lowwater.kafka;
