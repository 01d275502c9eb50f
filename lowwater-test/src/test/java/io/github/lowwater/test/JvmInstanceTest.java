package io.github.lowwater.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An instance in its own JVM: killed by SIGKILL, or halted between a write and its commit. */
class JvmInstanceTest {

  /** A stand-in application: "writes" once a tick, and "commits" after each write. */
  public static final class Writer {
    public static void main(String[] args) throws InterruptedException {
      System.out.println("ready");
      for (int write = 1; ; write++) {
        System.out.println("wrote " + write);
        JvmInstance.afterWrite();
        System.out.println("committed " + write);
        Thread.sleep(Integer.parseInt(args[0]));
      }
    }
  }

  @Test
  void killSendsSigkillToARunningInstance() throws Exception {
    try (JvmInstance instance =
        JvmInstance.start("writer", Writer.class, List.of(), List.of("10"))) {
      instance.awaitOutput("committed 2", Duration.ofSeconds(30));
      assertThat(instance.isAlive()).isTrue();

      assertThat(instance.kill()).isEqualTo(JvmInstance.SIGKILL_STATUS);

      assertThat(instance.isAlive()).isFalse();
    }
  }

  @Test
  void anArmedInstanceHaltsAfterItsNthWriteBeforeTheCommit() throws Exception {
    try (JvmInstance instance =
        JvmInstance.start(
            "halting", Writer.class, List.of(JvmInstance.haltAfterWrites(3)), List.of("10"))) {
      assertThat(instance.awaitExit(Duration.ofSeconds(30))).isEqualTo(JvmInstance.HALT_STATUS);
      assertThat(instance.output())
          .contains("committed 2", "wrote 3")
          .doesNotContain("committed 3");
    }
  }
}
