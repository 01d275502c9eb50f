package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.WatermarkTracker;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * What the meters read (issue 46: the readings in their own file): the published view only, -1 or
 * the tracker's markers for a partition not assigned, the ages of what a partition holds (0 when it
 * holds nothing, -1 when unknown, never negative), and the maxima over the assigned partitions.
 */
class PartitionReadingsTest {

  static final TopicPartition P0 = PartitionTableTest.P0;
  static final TopicPartition P1 = PartitionTableTest.P1;

  @Test
  void aPartitionNotAssignedReadsAsUnknownAndANullOneIsRefusedByName() {
    PartitionReadings readings = new PartitionReadings(new PartitionTable<>());
    assertThat(readings.frontier(P0)).isEqualTo(WatermarkTracker.UNSEEN);
    assertThat(readings.watermark(P0)).isEqualTo(WatermarkTracker.NO_WATERMARK);
    assertThat(readings.oldestSessionStart(P0)).isEqualTo(WatermarkTracker.NO_WATERMARK);
    assertThat(readings.processedLag(P0)).isEqualTo(-1);
    assertThat(readings.resumeDistance(P0)).isEqualTo(-1);
    assertThat(readings.resumeAgeMillis(P0, 1_000)).isEqualTo(-1);
    assertThat(readings.resumeEventAgeMillis(P0)).isEqualTo(-1);
    assertThat(readings.maxProcessedLag()).isEqualTo(-1);
    assertThat(readings.maxResumeDistance()).isEqualTo(-1);
    assertThat(readings.maxResumeAgeMillis(1_000)).isEqualTo(-1);
    assertThatThrownBy(() -> readings.processedLag(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("partition");
  }

  @Test
  void readingsAreThoseOfTheLastPublishAndAgesAreNeverNegative() {
    PartitionTable<String, Long, Long> table = new PartitionTable<>();
    PartitionReadings readings = new PartitionReadings(table);
    PartitionState<String, Long, Long> p0 = PartitionTableTest.state(P0);
    PartitionState<String, Long, Long> p1 = PartitionTableTest.state(P1);
    table.put(p0);
    table.put(p1);
    p0.progress.publish(7, 70, 1_000, PartitionProgress.UNKNOWN);
    p1.progress.publish(3, 90, PartitionProgress.NOTHING_HELD, PartitionProgress.NOTHING_HELD);
    assertThat(readings.processedLag(P0)).as("not yet published").isEqualTo(-1);

    table.publish(PartitionTable.NO_STATS);
    assertThat(readings.processedLag(P0)).isEqualTo(7);
    assertThat(readings.resumeDistance(P1)).isEqualTo(90);
    assertThat(readings.maxProcessedLag()).isEqualTo(7);
    assertThat(readings.maxResumeDistance()).isEqualTo(90);
    assertThat(readings.resumeAgeMillis(P0, 1_250)).isEqualTo(250);
    assertThat(readings.resumeAgeMillis(P0, 900)).as("a clock behind: never negative").isZero();
    assertThat(readings.resumeAgeMillis(P1, 1_250)).as("nothing held").isZero();
    assertThat(readings.resumeEventAgeMillis(P0)).as("unknown").isEqualTo(-1);
    assertThat(readings.resumeEventAgeMillis(P1)).as("nothing held").isZero();
    assertThat(readings.maxResumeAgeMillis(1_250)).isEqualTo(250);
  }
}
