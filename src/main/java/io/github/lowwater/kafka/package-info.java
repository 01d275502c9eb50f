/**
 * The Kafka consumer integration: {@link io.github.lowwater.kafka.KafkaWindows} drives {@link
 * io.github.lowwater.window.TumblingWindows} from a plain {@code KafkaConsumer} loop, exact in a
 * consumer group: results per partition, checkpoints in the commit metadata, redelivered records
 * told from late ones, the group watermark, the quiet-period advance, and for a single consumer
 * merged results with optional partition alignment.
 *
 * <p>{@code kafka-clients} is an optional dependency of this library: bring your own client. It is
 * built and tested against 4.4.0 only; nothing older is claimed. The other packages do not depend
 * on Kafka.
 */
package io.github.lowwater.kafka;
