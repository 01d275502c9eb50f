package io.github.lowwater.bench;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The {@link Feed} every benchmark walks, and the cursor that walks it: the partitions, event times
 * and poll boundaries, for 6, 1,024 or 16,384 sources. Shared by all benchmark classes, so that
 * every contender reads the same input the same way.
 */
@State(Scope.Thread)
public class FeedInput {
  @Param({"6", "1024", "16384"})
  int sources;

  TopicPartitionKey[] sourceKeys;
  int[] source;
  long[] eventTimeMillis;
  boolean[] pollStart;

  /** Events consumed so far; index {@code c & MASK}, lap {@code c >>> LOG2_LENGTH}. */
  long counter;

  @Setup(Level.Trial)
  public void setUp() {
    Feed feed = new Feed(sources);
    sourceKeys = feed.sourceKeys;
    source = feed.source;
    eventTimeMillis = feed.eventTimeMillis;
    pollStart = feed.pollStart;
  }
}
