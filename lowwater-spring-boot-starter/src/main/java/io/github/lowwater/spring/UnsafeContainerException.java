package io.github.lowwater.spring;

/**
 * A listener container set up so that something other than Lowwater would commit offsets, or count
 * records twice, or merge partitions of several consumers: the start is refused, and the message
 * names the setting and what to do (docs/spring.md, "What the starter closes").
 */
public final class UnsafeContainerException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String setting;

  UnsafeContainerException(String listener, String setting, String why) {
    super("Lowwater listener '" + listener + "' refuses to start: " + setting + " " + why);
    this.setting = setting;
  }

  /**
   * The setting that is refused.
   *
   * @return its name, such as {@code enable.auto.commit}
   */
  public String setting() {
    return setting;
  }
}
