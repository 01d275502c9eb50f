package io.github.lowwater.micrometer;

import static io.github.lowwater.micrometer.Meters.CALLS;
import static io.github.lowwater.micrometer.Meters.LAG_MAX;
import static io.github.lowwater.micrometer.Meters.MILLISECONDS;
import static io.github.lowwater.micrometer.Meters.PARTITION_LAG;
import static io.github.lowwater.micrometer.Meters.PARTITION_RESUME_AGE;
import static io.github.lowwater.micrometer.Meters.PARTITION_RESUME_DISTANCE;
import static io.github.lowwater.micrometer.Meters.PARTITION_RESUME_EVENT_AGE;
import static io.github.lowwater.micrometer.Meters.PROGRESS_COMMITS;
import static io.github.lowwater.micrometer.Meters.PROGRESS_FAILURES;
import static io.github.lowwater.micrometer.Meters.RECORDS;
import static io.github.lowwater.micrometer.Meters.RESUME_AGE_MAX;
import static io.github.lowwater.micrometer.Meters.RESUME_DISTANCE_MAX;

import io.github.lowwater.Clock;
import io.github.lowwater.kafka.KafkaWindows;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.apache.kafka.common.TopicPartition;

/**
 * The progress meters of {@link KafkaWindowsMetrics} (issue 33): what lag monitors cannot see,
 * because the committed offset trails what is processed by design. Per partition, the processed lag
 * (records the consumer has not delivered), the resume distance (records a new owner would read
 * again) and the resume age (how long ago, and how far back in event time, the record a new owner
 * would resume from was read); for the instance, the maximum of each. A reading that is not known
 * ({@code -1} on {@link KafkaWindows}) is NaN. The functions capture the windows weakly (through
 * the gauge), the clock and the partition, never the binder.
 */
final class ProgressMeters {

  private ProgressMeters() {}

  /** The instance's maxima. */
  static void bindInstance(
      MeterRegistry registry,
      Tags tags,
      KafkaWindows<?, ?, ?> windows,
      Clock wall,
      BoundMeters meters) {
    meters.add(
        registry,
        Meters.gauge(
            registry,
            LAG_MAX,
            "The largest processed lag over the assigned partitions (records the consumer has not"
                + " delivered yet: the log end minus its position), in records; NaN when none is"
                + " known",
            RECORDS,
            tags,
            windows,
            w -> known(w.maxProcessedLag())));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            RESUME_DISTANCE_MAX,
            "The largest resume distance over the assigned partitions (records a new owner would"
                + " read again), in records; NaN when none is known",
            RECORDS,
            tags,
            windows,
            w -> known(w.maxResumeDistance())));
    meters.add(
        registry,
        Meters.gauge(
            registry,
            RESUME_AGE_MAX,
            "The largest resume age over the assigned partitions (how long ago the record a new"
                + " owner would resume from was read), in milliseconds; NaN when none is known",
            MILLISECONDS,
            tags,
            windows,
            w -> known(w.maxResumeAgeMillis(wall.wallMillis()))));
    meters.add(
        registry,
        Meters.counter(
            registry,
            PROGRESS_COMMITS,
            "Calls that committed the processed positions to the progress group, in calls",
            CALLS,
            tags,
            windows,
            KafkaWindows::progressCommits));
    meters.add(
        registry,
        Meters.counter(
            registry,
            PROGRESS_FAILURES,
            "Calls to the progress group that failed (tried again at the next interval), in calls",
            CALLS,
            tags,
            windows,
            KafkaWindows::progressFailures));
  }

  /** One partition's readings, tagged with it. */
  static void bindPartition(
      MeterRegistry registry,
      Tags partitionTags,
      KafkaWindows<?, ?, ?> windows,
      TopicPartition tp,
      Clock wall,
      BoundMeters bound) {
    bound.add(
        registry,
        Meters.gauge(
            registry,
            PARTITION_LAG,
            "Records of a partition the consumer has not delivered yet (the log end minus its"
                + " position): the lag a monitor would show if the commit followed the processing,"
                + " in records; NaN when not known",
            RECORDS,
            partitionTags,
            windows,
            w -> known(w.processedLag(tp))));
    bound.add(
        registry,
        Meters.gauge(
            registry,
            PARTITION_RESUME_DISTANCE,
            "Records of a partition a new owner would read again: from the offset it would commit"
                + " to the read position, in records; NaN when not known",
            RECORDS,
            partitionTags,
            windows,
            w -> known(w.resumeDistance(tp))));
    bound.add(
        registry,
        Meters.gauge(
            registry,
            PARTITION_RESUME_AGE,
            "How long ago this instance read the record a new owner of a partition would resume"
                + " from, in milliseconds; 0 when none is held, NaN when not known",
            MILLISECONDS,
            partitionTags,
            windows,
            w -> known(w.resumeAgeMillis(tp, wall.wallMillis()))));
    bound.add(
        registry,
        Meters.gauge(
            registry,
            PARTITION_RESUME_EVENT_AGE,
            "How far the record a new owner of a partition would resume from trails the"
                + " partition's frontier in event time, in milliseconds; 0 when none is held, NaN"
                + " when not known",
            MILLISECONDS,
            partitionTags,
            windows,
            w -> known(w.resumeEventAgeMillis(tp))));
  }

  /** A reading of {@link KafkaWindows}, NaN when it is not known (-1). */
  private static double known(long reading) {
    return Meters.known(reading);
  }
}
