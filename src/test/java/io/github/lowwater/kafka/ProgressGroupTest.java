package io.github.lowwater.kafka;

import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.P0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.T0;
import static io.github.lowwater.kafka.KafkaWindowsMockConsumerTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.ManualClock;
import io.github.lowwater.window.Aggregators;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminResults;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The progress group's calls without a broker (issue 33): at most one per interval, none while one
 * is in flight, a failure counted and tried again, never thrown into the loop; and the builder's
 * checks. {@code ProgressGroupBrokerTest} runs it on the real broker.
 */
class ProgressGroupTest {

  final ManualClock clock = new ManualClock(T0.plus(Duration.ofMinutes(30)));

  /** An {@code Admin} that records each {@code alterConsumerGroupOffsets} and completes by hand. */
  static final class FakeAdmin {
    final List<String> calls = new ArrayList<>();
    final List<KafkaFutureImpl<Map<TopicPartition, Errors>>> pending = new ArrayList<>();
    RuntimeException throwOnCall;

    Admin admin() {
      return (Admin)
          Proxy.newProxyInstance(
              Admin.class.getClassLoader(),
              new Class<?>[] {Admin.class},
              (proxy, method, args) -> {
                if (!method.getName().equals("alterConsumerGroupOffsets")) {
                  throw new UnsupportedOperationException(method.getName());
                }
                if (throwOnCall != null) {
                  throw throwOnCall;
                }
                @SuppressWarnings("unchecked")
                Map<TopicPartition, OffsetAndMetadata> offsets =
                    (Map<TopicPartition, OffsetAndMetadata>) args[1];
                calls.add(args[0] + " " + offsets.get(P0).offset());
                KafkaFutureImpl<Map<TopicPartition, Errors>> f = new KafkaFutureImpl<>();
                pending.add(f);
                return AdminResults.alterConsumerGroupOffsets(f);
              });
    }
  }

  KafkaWindows<String, Long, Long> windows(Admin admin) {
    MockConsumer<String, String> consumer = KafkaWindowsTest.assigned(P0);
    KafkaWindows<String, Long, Long> w =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.count())
            .clock(clock)
            .consumer(consumer)
            .progressGroup(admin, "orders.progress", Duration.ofSeconds(1))
            .build();
    w.rebalanceListener().onPartitionsAssigned(List.of(P0));
    return w;
  }

  @SafeVarargs
  static void poll(KafkaWindows<String, Long, Long> w, ConsumerRecord<String, String>... rs) {
    KafkaWindowsTest.feed(w, rs);
  }

  @Test
  void thePositionsAreSentAtMostOncePerIntervalAndNeverWhileACallIsInFlight() {
    FakeAdmin fake = new FakeAdmin();
    KafkaWindows<String, Long, Long> w = windows(fake.admin());
    poll(w);
    assertThat(fake.calls).as("nothing read: nothing to send").isEmpty();
    poll(w, record(P0, 0, 1, "a"), record(P0, 1, 2, "a"), record(P0, 2, 3, "a"));
    assertThat(fake.calls).containsExactly("orders.progress 3");
    clock.advance(Duration.ofSeconds(2));
    poll(w, record(P0, 3, 4, "a"));
    assertThat(fake.calls).as("the first call is in flight").hasSize(1);
    fake.pending.get(0).complete(Map.of());
    assertThat(w.progressCommits()).isOne();
    poll(w); // two seconds after the first call
    assertThat(fake.calls).containsExactly("orders.progress 3", "orders.progress 4");
    fake.pending.get(1).complete(Map.of());
    clock.advance(Duration.ofMillis(500));
    poll(w, record(P0, 4, 5, "a"));
    assertThat(fake.calls).as("within the interval of the last call").hasSize(2);
    clock.advance(Duration.ofMillis(600));
    poll(w);
    assertThat(fake.calls).hasSize(3).endsWith("orders.progress 5");
    assertThat(w.progressCommits()).isEqualTo(2);
  }

  @Test
  void aFailedCallIsCountedAndTriedAgainAndNothingReachesTheLoop() {
    FakeAdmin fake = new FakeAdmin();
    KafkaWindows<String, Long, Long> w = windows(fake.admin());
    poll(w, record(P0, 0, 1, "a"));
    fake.pending
        .get(0)
        .completeExceptionally(
            new org.apache.kafka.common.errors.TimeoutException("the broker is away"));
    assertThat(w.progressFailures()).isOne();
    clock.advance(Duration.ofSeconds(1));
    fake.throwOnCall = new IllegalStateException("the admin client is closed");
    poll(w, record(P0, 1, 2, "a")); // does not throw
    assertThat(w.progressFailures()).isEqualTo(2);
    fake.throwOnCall = null;
    clock.advance(Duration.ofSeconds(1));
    poll(w);
    fake.pending.get(1).complete(Map.of());
    assertThat(fake.calls).containsExactly("orders.progress 1", "orders.progress 2");
    assertThat(w.progressCommits()).isOne();
  }

  @Test
  void theBuilderNamesABadGroupOrIntervalAndRefusesTheConsumersOwnGroup() {
    Admin admin = new FakeAdmin().admin();
    KafkaWindows.Builder<Long, Long> b =
        KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong());
    assertThatThrownBy(() -> b.progressGroup(admin, " ", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("groupId must not be blank: \" \"");
    assertThatThrownBy(() -> b.progressGroup(admin, "g.progress", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval");
    assertThatThrownBy(() -> b.progressGroup(null, "g.progress", Duration.ofSeconds(1)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("admin");
    b.progressGroup(admin, "g.progress", Duration.ofSeconds(1));
    assertThatThrownBy(() -> b.progressGroup(admin, "other", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("progressGroup was already set to g.progress");

    MockConsumer<String, String> consumer = new MockConsumer<>("earliest");
    String own = consumer.groupMetadata().groupId();
    assertThatThrownBy(
            () ->
                KafkaWindows.builder(Duration.ofMinutes(5), Aggregators.sumLong())
                    .consumer(consumer)
                    .progressGroup(admin, own, Duration.ofSeconds(1))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("progressGroup must not be the consumer's own group")
        .hasMessageEndingWith(": " + own);
  }
}
