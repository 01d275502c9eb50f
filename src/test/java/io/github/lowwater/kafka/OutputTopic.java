package io.github.lowwater.kafka;

/** Reads what a {@link TransactionalSink} wrote on an output record (the test kit reads them). */
final class OutputTopic {

  private OutputTopic() {}

  /** The pane index of an output record ({@link RowRecords#INDEX_HEADER}). */
  static int index(org.apache.kafka.common.header.Headers headers) {
    return java.nio.ByteBuffer.wrap(headers.lastHeader(RowRecords.INDEX_HEADER).value()).getInt();
  }
}
