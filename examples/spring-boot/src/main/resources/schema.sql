CREATE TABLE IF NOT EXISTS arrivals_5m (
  window_start TIMESTAMP NOT NULL,
  source_partition INT NOT NULL,
  line VARCHAR(64) NOT NULL,
  arrivals BIGINT NOT NULL,
  complete BOOLEAN NOT NULL,
  PRIMARY KEY (window_start, source_partition, line)
);
