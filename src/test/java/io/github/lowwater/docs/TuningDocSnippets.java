package io.github.lowwater.docs;

import io.github.lowwater.CachedClock;
import io.github.lowwater.Clock;
import io.github.lowwater.WatermarkTracker;
import io.github.lowwater.tuning.Advice;
import io.github.lowwater.tuning.Advisor;
import io.github.lowwater.tuning.DisorderRecorder;
import io.github.lowwater.tuning.SourceDisorder;
import io.github.lowwater.window.TumblingWindows;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The code blocks of docs/tuning.md; see the package comment. */
@SuppressWarnings("unused")
final class TuningDocSnippets {

  private static final Logger log = LoggerFactory.getLogger(TuningDocSnippets.class);

  private TuningDocSnippets() {}

  static void recordTheDisorder(
      TumblingWindows<String, Long, Long> windows,
      int partitions,
      ConsumerRecords<String, Long> records) {
    // snippet: tuning.md record the disorder
    CachedClock clock = new CachedClock(Clock.system());
    DisorderRecorder recorder = DisorderRecorder.builder().clock(clock).build();
    SourceDisorder[] disorder = new SourceDisorder[partitions]; // one handle per partition
    WatermarkTracker.Source[] handles = new WatermarkTracker.Source[partitions];
    for (int p = 0; p < partitions; p++) {
      disorder[p] = recorder.source(p);
      handles[p] = windows.source(p);
    }
    clock.update(); // once per poll
    for (ConsumerRecord<String, Long> r : records) {
      recorder.record(disorder[r.partition()], r.timestamp(), clock.monotonicNanos());
      if (!windows.add(handles[r.partition()], r.timestamp(), r.key(), r.value())) {
        recorder.recordLate(disorder[r.partition()], r.timestamp(), windows.watermark());
      }
    }
    Advice advice = Advisor.withTargetLateFraction(1e-4).advise(recorder.snapshot());
    log.info("{}", advice.recommendation());
    // end snippet
  }
}
