package io.github.lowwater.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps the secrets of a client properties file out of everything the tool prints: every value of a
 * property whose name says it is secret ({@code password}, {@code secret}, {@code jaas}, {@code
 * token}, {@code credential}, {@code key} as in {@code ssl.key.password} or {@code
 * ssl.keystore.key}), and every word of four characters or more of such a value but option names
 * and the JAAS control flags (a JAAS configuration's login module, its flag if misspelt, its quoted
 * values), is replaced by {@code [hidden]} wherever it appears in a message. Immutable.
 */
final class Secrets {

  static final String HIDDEN = "[hidden]";

  private static final Pattern SECRET_NAME =
      Pattern.compile("password|secret|jaas|token|credential|key(?!\\.deserializer)");

  /** A word of a value, unless it names an option ({@code password=}). */
  private static final Pattern WORD = Pattern.compile("[^\\s=;\"]++(?!\\s*=)");

  /** The JAAS control flags: words of a value that are no secret. */
  private static final Set<String> FLAGS =
      Set.of("required", "requisite", "sufficient", "optional");

  /** Longest first, so that a secret containing another is hidden whole. */
  private final List<String> values;

  private Secrets(List<String> values) {
    values.sort(Comparator.comparingInt(String::length).reversed());
    this.values = List.copyOf(values);
  }

  /** No secrets: for input that is not read with a properties file. */
  static Secrets none() {
    return new Secrets(new ArrayList<>());
  }

  /** The secrets of {@code config}. */
  static Secrets of(Properties config) {
    List<String> values = new ArrayList<>();
    for (String name : config.stringPropertyNames()) {
      if (!SECRET_NAME.matcher(name.toLowerCase(Locale.ROOT)).find()) {
        continue;
      }
      String value = config.getProperty(name).trim();
      if (!value.isEmpty()) {
        values.add(value);
      }
      Matcher m = WORD.matcher(value);
      while (m.find()) {
        if (m.group().length() >= 4 && !FLAGS.contains(m.group())) {
          values.add(m.group());
        }
      }
    }
    return new Secrets(values);
  }

  /** {@code text} with every secret replaced by {@link #HIDDEN}; null stays null. */
  String redact(String text) {
    if (text == null) {
      return null;
    }
    String t = text;
    for (String v : values) {
      t = t.replace(v, HIDDEN);
    }
    return t;
  }
}
