package io.github.lowwater.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

class LowwaterBrokerTest {

  /**
   * Records stamped months ago (a test's fixed event times) are never deleted by retention: the
   * default 7-day retention deleted a test's input 5 minutes into a run.
   */
  @Test
  void retentionDeletesNothingWhateverTheRecordsTimestamps() throws Exception {
    LowwaterBroker broker = LowwaterBroker.shared();
    try (Admin admin = broker.admin()) {
      ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
      Config config = admin.describeConfigs(List.of(node)).all().get().get(node);
      assertThat(config.get("log.retention.ms").value()).isEqualTo("-1");
    }
  }

  /** An override with a null value gives the setting back to Kafka's default. */
  @Test
  void aNullOverrideRestoresKafkasDefault() throws Exception {
    java.util.Map<String, String> overrides = new java.util.HashMap<>();
    overrides.put("group.consumer.session.timeout.ms", null);
    overrides.put("num.io.threads", "3");
    try (LowwaterBroker broker = LowwaterBroker.start(overrides);
        Admin admin = broker.admin()) {
      ConfigResource node = new ConfigResource(ConfigResource.Type.BROKER, "1");
      Config config = admin.describeConfigs(List.of(node)).all().get().get(node);
      assertThat(config.get("group.consumer.session.timeout.ms").value()).isEqualTo("45000");
      assertThat(config.get("num.io.threads").value()).isEqualTo("3");
      assertThat(LowwaterBroker.shared().bootstrapServers())
          .isNotEqualTo(broker.bootstrapServers());
    }
  }
}
