package io.github.lowwater.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.lowwater.window.Timing;
import org.junit.jupiter.api.Test;

/**
 * The {@code MERGE} of docs/kafka.md, "Sinks for early and late rows", as {@link PaneSink} runs it
 * against H2 (issue 45, item 2): the section's upsert on (generation, index) overwrote a complete
 * row with an incomplete one, against the README's rule. A complete row is never overwritten by an
 * incomplete one; an incomplete row is written only where the window has no row; a complete row
 * replaces an incomplete one whatever its pane; a tombstone stays.
 */
class PaneSinkTest {

  static final String TOPIC = "panes";

  static void write(
      PaneSink sink, int generation, long start, long value, int index, boolean complete) {
    sink.write("w", generation, TOPIC, 0, start, "k", value, Timing.EARLY, index, false, complete);
  }

  static Long held(PaneSink sink, long start) {
    return sink.sumOverPartitions(TOPIC).getOrDefault(start, new java.util.TreeMap<>()).get("k");
  }

  @Test
  void aCompleteRowIsNeverOverwrittenByAnIncompleteOneEvenOfANewerGeneration() {
    try (PaneSink sink = new PaneSink()) {
      write(sink, 1, 0, 10, 1, true);
      write(sink, 2, 0, 5, 0, false); // a newer owner that lacks records
      write(sink, 2, 0, 6, 4, false);
      assertThat(held(sink, 0)).isEqualTo(10);
      write(sink, 2, 0, 12, 0, true); // its complete rows replace as before
      assertThat(held(sink, 0)).isEqualTo(12);
      assertThat(sink.refused()).isEqualTo(2);
    }
  }

  @Test
  void anIncompleteRowOnlyWhereThereIsNoneAndACompleteOneReplacesItWhateverItsPane() {
    try (PaneSink sink = new PaneSink()) {
      write(sink, 1, 300, 3, 0, false);
      assertThat(held(sink, 300)).isEqualTo(3);
      write(sink, 1, 300, 4, 1, false);
      assertThat(held(sink, 300)).as("an incomplete row does not replace one").isEqualTo(3);
      write(sink, 1, 300, 7, 0, true);
      assertThat(held(sink, 300)).as("a complete row replaces it at a lower index").isEqualTo(7);
    }
  }

  @Test
  void anIncompleteRowDoesNotBringATombstoneBack() {
    try (PaneSink sink = new PaneSink()) {
      write(sink, 1, 600, 3, 0, true);
      sink.delete("w", 1, TOPIC, 0, 600, "k");
      write(sink, 2, 600, 4, 0, false);
      assertThat(held(sink, 600)).isNull();
    }
  }
}
