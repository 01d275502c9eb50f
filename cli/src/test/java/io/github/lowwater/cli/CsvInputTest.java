package io.github.lowwater.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsvInputTest {

  private final List<String> read = new ArrayList<>();

  private long read(String text) throws IOException {
    return read(text.getBytes(StandardCharsets.UTF_8));
  }

  private long read(byte[] bytes) throws IOException {
    return CsvInput.read(
        new ByteArrayInputStream(bytes), (p, o, t, k) -> read.add(p + "/" + o + "/" + t + "/" + k));
  }

  @Test
  void readsEveryRecordInFileOrderWithKeysThatMayHoldCommas() throws IOException {
    long n =
        read(
            "partition,offset,timestampMillis,key\r\n"
                + "0,0,1000,a\r\n"
                + "\n"
                + "1,7,-5,b,c\n"
                + "2,1,3000,\n"
                + "3,0,4000,clé €");
    assertThat(n).isEqualTo(4);
    assertThat(read).containsExactly("0/0/1000/a", "1/7/-5/b,c", "2/1/3000/", "3/0/4000/clé €");
  }

  /**
   * Regression (issue 16): a file that is not UTF-8 stopped the replay with exit status 1 and the
   * decoder's "Input length = 1", naming no line; and a reader that decodes ahead cannot tell which
   * line it was, since the last line it returned is thousands of bytes before the bad one.
   */
  @Test
  void aLineThatIsNotUtf8IsNamedByItsNumberAndByteFarIntoTheFile() throws IOException {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    text.writeBytes((CsvInput.HEADER + "\n").getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < 10_000; i++) {
      text.writeBytes(("0," + i + ",1000,key\n").getBytes(StandardCharsets.UTF_8));
    }
    text.writeBytes("0,10000,1000,k".getBytes(StandardCharsets.UTF_8));
    text.write(0xff); // never in UTF-8
    text.writeBytes("\n0,10001,1000,z\n".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> read(text.toByteArray()))
        .isInstanceOf(InputException.class)
        .hasMessage("line 10002: not valid UTF-8 (byte 15 of the line)");
    assertThat(read).hasSize(10_000);

    byte[] header = ("x" + CsvInput.HEADER + "\n").getBytes(StandardCharsets.UTF_8);
    header[0] = (byte) 0xc3; // the first byte of two, then a character that cannot follow it
    assertThatThrownBy(() -> read(header))
        .hasMessage("line 1: not valid UTF-8 (byte 1 of the line)");
    byte[] cut = (CsvInput.HEADER + "\n0,0,1000,€").getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> read(java.util.Arrays.copyOf(cut, cut.length - 1)))
        .hasMessage("line 2: not valid UTF-8 (byte 10 of the line)"); // cut in a character
  }

  @Test
  void aFieldThatIsNotANumberIsNamedWithItsLine() {
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0,0,1000,a\n0,1,12x,b\n"))
        .isInstanceOf(InputException.class)
        .hasMessage("line 3, field timestampMillis: not a number: \"12x\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\np,0,1000,a\n"))
        .hasMessage("line 2, field partition: not a number: \"p\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0,x1,1000,a\n"))
        .hasMessage("line 2, field offset: not a number: \"x1\"");
  }

  @Test
  void aMissingFieldIsTheFirstOneMissing() {
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0\n"))
        .hasMessage("line 2, field offset: missing: \"0\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0,1\n"))
        .hasMessage("line 2, field timestampMillis: missing: \"0,1\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0,1,1000\n"))
        .hasMessage("line 2, field key: missing: \"0,1,1000\"");
  }

  @Test
  void aNegativePartitionOrOffsetIsRejected() {
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n-1,0,1000,a\n"))
        .hasMessage("line 2, field partition: not a partition number: \"-1\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n3000000000,0,1000,a\n"))
        .hasMessage("line 2, field partition: not a partition number: \"3000000000\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0,-4,1000,a\n"))
        .hasMessage("line 2, field offset: negative: -4");
  }

  @Test
  void theHeaderIsRequiredAndALongFieldIsShortened() {
    assertThatThrownBy(() -> read(""))
        .hasMessage(
            "line 1, field header: expected \"partition,offset,timestampMillis,key\": empty file");
    assertThatThrownBy(() -> read("p,o,t,k\n"))
        .hasMessage(
            "line 1, field header: expected \"partition,offset,timestampMillis,key\": \"p,o,t,k\"");
    assertThatThrownBy(() -> read(CsvInput.HEADER + "\n0,0," + "9".repeat(50) + ",a\n"))
        .hasMessage("line 2, field timestampMillis: not a number: \"" + "9".repeat(40) + "...\"");
  }
}
