package io.github.lowwater.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CsvInputTest {

  private final List<String> read = new ArrayList<>();

  private long read(String text) throws IOException {
    return CsvInput.read(
        new BufferedReader(new StringReader(text)),
        (p, o, t, k) -> read.add(p + "/" + o + "/" + t + "/" + k));
  }

  @Test
  void readsEveryRecordInFileOrderWithKeysThatMayHoldCommas() throws IOException {
    long n =
        read(
            "partition,offset,timestampMillis,key\r\n"
                + "0,0,1000,a\r\n"
                + "\n"
                + "1,7,-5,b,c\n"
                + "2,1,3000,\n");
    assertThat(n).isEqualTo(3);
    assertThat(read).containsExactly("0/0/1000/a", "1/7/-5/b,c", "2/1/3000/");
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
