package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.junit.jupiter.api.Test;

/**
 * The start-up check of {@code resultScope(CO_PARTITIONED)}: an assignor that keeps partition
 * {@code i} of every topic on one consumer, or the listener does not start (docs/spring.md).
 */
class ContainerChecksTest {

  @Test
  void coPartitionedTasksNeedTheRangeAssignorUnderEitherProtocol() {
    // classic: the default list starts with the range assignor, which the group then uses
    assertThatCode(() -> ContainerChecks.checkCoPartitioningAssignor("l", Map.of()))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                ContainerChecks.checkCoPartitioningAssignor(
                    "l", Map.of("partition.assignment.strategy", RangeAssignor.class)))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                ContainerChecks.checkCoPartitioningAssignor(
                    "l",
                    Map.of(
                        "partition.assignment.strategy",
                        List.of(RangeAssignor.class.getName(), "other"))))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                ContainerChecks.checkCoPartitioningAssignor(
                    "l",
                    Map.of(
                        "partition.assignment.strategy",
                        CooperativeStickyAssignor.class.getName()
                            + ", "
                            + RangeAssignor.class.getName())))
        .isInstanceOf(UnsafeContainerException.class)
        .hasMessageContaining(
            "partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor")
        .hasMessageContaining(
            "only the range assignor keeps partition i of every topic on one consumer");
    // consumer protocol: the broker's default server assignor is uniform
    assertThatThrownBy(
            () ->
                ContainerChecks.checkCoPartitioningAssignor(
                    "l", Map.of("group.protocol", "consumer")))
        .isInstanceOf(UnsafeContainerException.class)
        .hasMessageContaining("group.remote.assignor=null");
    assertThatThrownBy(
            () ->
                ContainerChecks.checkCoPartitioningAssignor(
                    "l", Map.of("group.protocol", "CONSUMER", "group.remote.assignor", "uniform")))
        .hasMessageContaining("group.remote.assignor=uniform");
    assertThatCode(
            () ->
                ContainerChecks.checkCoPartitioningAssignor(
                    "l", Map.of("group.protocol", "consumer", "group.remote.assignor", "range")))
        .doesNotThrowAnyException();
  }
}
