package io.github.lowwater.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.kafka.KafkaWindows;
import io.github.lowwater.kafka.RecordMapper;
import io.github.lowwater.window.Aggregators;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class LowwaterListenerTest {

  static LowwaterListener.Builder<String, String, String, Long, Long> builder() {
    return LowwaterListener.<String, String, String, Long, Long>builder("in")
        .groupId("g")
        .windows(() -> KafkaWindows.builder(Duration.ofMinutes(1), Aggregators.sumLong()));
  }

  @Test
  void badSettingsAreRefusedNamingTheParameterAndTheValue() {
    assertThatThrownBy(() -> LowwaterListener.builder())
        .hasMessage("topics must name at least one topic, was none");
    assertThatThrownBy(() -> LowwaterListener.builder("in", " "))
        .hasMessage("a topic must not be blank, was ' '");
    assertThatThrownBy(() -> builder().groupId("")).hasMessage("groupId must not be blank, was ''");
    assertThatThrownBy(() -> builder().concurrency(0))
        .hasMessage("concurrency must be at least 1, was 0");
    assertThatThrownBy(() -> builder().idleTick(Duration.ZERO))
        .hasMessage("idleTick must be at least 1 ms, was PT0S");
    assertThatThrownBy(() -> builder().errorBackOff(Duration.ofSeconds(-1)))
        .hasMessage("errorBackOff must be zero or more, was PT-1S");
    assertThatThrownBy(() -> builder().mapper(ConsumerRecord::key, r -> 1L).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "a LowwaterListener needs rowWriter, sink or transactionalSink, which is not set");
    assertThatThrownBy(() -> builder().rowWriter(rows -> {}).rowWriter(rows -> {}))
        .hasMessageContaining("exclusive");
  }

  @Test
  void aPoisonRecordGoesToTheDeadLetterHandlerAndIsSkipped() {
    List<String> deadLetters = new ArrayList<>();
    LowwaterListener<String, String, String, Long, Long> listener =
        builder()
            .mapper(
                (record, out) -> {
                  if (record.value().equals("poison")) {
                    throw new IllegalArgumentException("unreadable");
                  }
                  out.emit(record.timestamp(), record.key(), 1L);
                })
            .deadLetter((record, e) -> deadLetters.add(record.offset() + " " + e.getMessage()))
            .rowWriter(rows -> {})
            .build();
    Recorder out = new Recorder();

    listener.mapper().map(new ConsumerRecord<>("in", 0, 7, "k", "poison"), out);
    listener.mapper().map(new ConsumerRecord<>("in", 0, 8, "k", "fine"), out);

    assertThat(deadLetters).containsExactly("7 unreadable");
    assertThat(out.emitted).containsExactly("k"); // the poison record emitted nothing: skipped
  }

  @Test
  void aDeadLetterHandlerThatThrowsFailsThePoll() {
    RecordMapper<String, String, String, Long> failing =
        builder()
            .mapper(
                (record, out) -> {
                  throw new IllegalArgumentException("unreadable");
                })
            .deadLetter(
                (record, e) -> {
                  throw new IOException("the dead-letter topic is down");
                })
            .rowWriter(rows -> {})
            .build()
            .mapper();

    assertThatThrownBy(
            () -> failing.map(new ConsumerRecord<>("in", 0, 7, "k", "v"), new Recorder()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the dead-letter handler failed")
        .hasCauseInstanceOf(IOException.class);
  }

  /** Keeps the keys emitted. */
  static final class Recorder implements RecordMapper.Output<String, Long> {
    final List<String> emitted = new ArrayList<>();

    @Override
    public void emit(long eventTimeMillis, String key, Long value) {
      emitted.add(key);
    }

    @Override
    public void observe(long eventTimeMillis) {}

    @Override
    public void punctuate(long watermarkMillis) {}
  }
}
