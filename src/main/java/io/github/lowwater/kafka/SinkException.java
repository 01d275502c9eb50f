package io.github.lowwater.kafka;

/**
 * What {@link KafkaWindows#emit(ResultSink)} throws when the sink's {@code write} or {@code commit}
 * failed: its cause is the sink's exception. Nothing counted as returned: the next {@code emit}
 * writes the same rows again, then the rows finalized since, then commits. The caller may poll and
 * emit again at once, or back off first.
 */
public final class SinkException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  SinkException(String message, Throwable cause) {
    super(message, cause);
  }
}
