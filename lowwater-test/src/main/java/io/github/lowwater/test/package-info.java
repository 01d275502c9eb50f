/**
 * Lowwater's test kit: a real Kafka broker in the test JVM ({@link
 * io.github.lowwater.test.LowwaterBroker}), client settings that make group tests fast ({@link
 * io.github.lowwater.test.GroupClients}), a group of consumers driven from the test's thread
 * through joins, leaves and crashes ({@link io.github.lowwater.test.TestGroup}), a reader of an
 * output topic under either isolation level ({@link io.github.lowwater.test.OutputTopicReader}), a
 * group's commits read from outside ({@link io.github.lowwater.test.CommittedOffsets}), a restart
 * on {@code MockConsumer} ({@link io.github.lowwater.test.MockConsumers}), and an application's
 * instance in a JVM of its own, killed by SIGKILL or halted between a write and its commit ({@link
 * io.github.lowwater.test.JvmInstance}). See docs/testing.md.
 *
 * <p>Depends on Kafka only ({@code kafka-clients}, and the broker's {@code kafka_2.13}), not on
 * Lowwater itself: add it in test scope beside {@code io.github.lowwater:lowwater}.
 */
package io.github.lowwater.test;
