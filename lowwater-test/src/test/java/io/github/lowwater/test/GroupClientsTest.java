package io.github.lowwater.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.junit.jupiter.api.Test;

class GroupClientsTest {

  @Test
  void eachProtocolGetsTheTimeoutsItsClientMaySet() {
    Map<String, Object> classic = GroupClients.consumer("b:1", "g", GroupProtocol.CLASSIC);
    Map<String, Object> kip848 = GroupClients.consumer("b:1", "g", GroupProtocol.CONSUMER);

    assertThat(classic)
        .containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic")
        .containsEntry(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, GroupClients.SESSION_TIMEOUT_MS)
        .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
        .doesNotContainKey(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG);
    // KIP-848: the session timeout is the broker's; the client may not set it.
    assertThat(kip848)
        .containsEntry(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")
        .containsEntry(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, GroupClients.SESSION_TIMEOUT_MS)
        .doesNotContainKey(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG)
        .doesNotContainKey(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG)
        .doesNotContainKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
  }
}
