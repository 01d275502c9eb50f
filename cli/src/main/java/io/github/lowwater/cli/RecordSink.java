package io.github.lowwater.cli;

/** Where an input delivers its records, one call per record, in the order they were read. */
@FunctionalInterface
interface RecordSink {

  /**
   * Takes one record.
   *
   * @param partition the record's partition, {@code >= 0}
   * @param offset its offset in the partition
   * @param timestampMillis its event time, epoch milliseconds
   * @param key its key, never null (a null Kafka key is the empty string)
   */
  void accept(int partition, long offset, long timestampMillis, String key);
}
