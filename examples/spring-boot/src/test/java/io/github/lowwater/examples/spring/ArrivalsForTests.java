package io.github.lowwater.examples.spring;

import io.github.lowwater.test.JvmInstance;
import java.util.Collection;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ParameterizedPreparedStatementSetter;

/**
 * The service as its tests run it in a JVM of its own ({@link JvmInstance}): {@link
 * ArrivalsApplication}, whose {@code JdbcTemplate} calls {@link JvmInstance#afterWrite()} after each
 * batch of rows it wrote, so that {@link JvmInstance#haltAfterWrites(int)} halts the instance
 * between a write and its commit. The application's own code is unchanged.
 */
public final class ArrivalsForTests {

  private ArrivalsForTests() {}

  public static void main(String[] args) {
    new SpringApplicationBuilder(ArrivalsApplication.class)
        .web(WebApplicationType.NONE)
        .initializers(c -> c.getBeanFactory().addBeanPostProcessor(new HaltAfterWrite()))
        .run(args);
  }

  /** Wraps the application's {@code JdbcTemplate}: a write, then maybe the halt. */
  static final class HaltAfterWrite implements BeanPostProcessor {
    @Override
    public Object postProcessAfterInitialization(Object bean, String name) {
      if (!(bean instanceof JdbcTemplate jdbc)) {
        return bean;
      }
      return new JdbcTemplate(jdbc.getDataSource()) {
        @Override
        public <T> int[][] batchUpdate(
            String sql,
            Collection<T> batchArgs,
            int batchSize,
            ParameterizedPreparedStatementSetter<T> pss) {
          int[][] updated = super.batchUpdate(sql, batchArgs, batchSize, pss);
          if (!batchArgs.isEmpty()) {
            JvmInstance.afterWrite(); // the rows are in the table; the commit comes after this
          }
          return updated;
        }
      };
    }
  }
}
