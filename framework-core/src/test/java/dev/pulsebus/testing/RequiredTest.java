package dev.pulsebus.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequiredTest {

    @Test
    void theServicesNamedAreRequiredAndAnUnknownNameIsAnError() {
        assertThat(Required.parse(" postgres, Redis ,")).containsExactlyInAnyOrder("postgres", "redis");
        assertThat(Required.parse("")).isEmpty();
        // a typo must not quietly require nothing: CI would go green by skipping
        assertThatThrownBy(() -> Required.parse("postgress"))
                .hasMessageContaining("unknown service 'postgress'").hasMessageContaining("postgres");
    }

    @Test
    void anAvailableServiceNeitherSkipsNorFails() {
        Required.service("redis", null);
    }
}
