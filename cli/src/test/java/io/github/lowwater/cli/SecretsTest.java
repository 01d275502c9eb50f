package io.github.lowwater.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The secrets of {@code --consumer-config} never reach the output, not even in an error. */
class SecretsTest {

  @TempDir Path dir;

  /**
   * Regression guard: the Kafka client puts words of a bad JAAS configuration in its exception
   * message ("Invalid login module control flag 'hunter2-secret' in JAAS config"), which the tool
   * printed as its error line.
   */
  @Test
  void aClientErrorThatQuotesTheJaasConfigPrintsNoSecret() throws Exception {
    Path config = dir.resolve("client.properties");
    Files.writeString(
        config,
        "security.protocol=SASL_PLAINTEXT\n"
            + "sasl.mechanism=PLAIN\n"
            + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
            + " hunter2-secret username=\"alice\" password=\"pw-hunter2\";\n"
            + "ssl.truststore.password=truststore-hunter2\n");
    Path csv = Cli.csv(dir, "0,0,1000,a");

    Cli run =
        Cli.fork(
            dir,
            "replay",
            "--bootstrap-servers",
            "127.0.0.1:1",
            "--topic",
            "arrivals",
            "--window",
            "1m",
            "--consumer-config",
            config.toString());

    assertThat(run.status()).isEqualTo(1);
    assertThat(run.out() + run.err())
        .contains("error: ")
        .contains(Secrets.HIDDEN) // the client's message did name the secret
        .doesNotContain("hunter2");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(csv).exists();
  }

  @Test
  void everyValueAndWordOfASecretPropertyIsHiddenButOptionNamesAndFlags() {
    Properties p = new Properties();
    p.setProperty(
        "sasl.jaas.config", "a.b.Login required username=\"alice\" password=\"s3cret!\";");
    p.setProperty("ssl.key.password", "abc");
    p.setProperty("ssl.truststore.location", "/etc/kafka/trust.jks"); // not secret
    p.setProperty("key.deserializer", "org.example.KeyDeserializer"); // not secret
    Secrets s = Secrets.of(p);

    assertThat(s.redact("x a.b.Login required username alice s3cret! abc /etc/kafka/trust.jks"))
        .isEqualTo("x [hidden] required username [hidden] [hidden] [hidden] /etc/kafka/trust.jks");
    assertThat(s.redact("org.example.KeyDeserializer")).isEqualTo("org.example.KeyDeserializer");
    assertThat(s.redact(null)).isNull();
    assertThat(Secrets.none().redact("s3cret!")).isEqualTo("s3cret!");
  }
}
