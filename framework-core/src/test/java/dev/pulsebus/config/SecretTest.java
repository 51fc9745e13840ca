package dev.pulsebus.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretTest {

    record Settings(String user, Secret password) {
    }

    @Test
    void printsMaskedAndRevealsOnlyWhenAsked() {
        Secret s = Secret.of("hunter2");
        assertThat(s.toString()).isEqualTo("****");
        assertThat(new Settings("ann", s).toString()).isEqualTo("Settings[user=ann, password=****]");
        assertThat(s.reveal()).isEqualTo("hunter2");
        assertThat(Secret.of("").toString()).as("unset shows as unset").isEmpty();
        assertThat(Secret.of("")).isSameAs(Secret.NONE);
        assertThat(Secret.NONE.isEmpty()).isTrue();
    }

    @Test
    void comparesByValue() {
        assertThat(Secret.of("a1")).isEqualTo(Secret.of("a1")).hasSameHashCodeAs(Secret.of("zz"));
        assertThat(Secret.of("a1")).isNotEqualTo(Secret.of("a2")).isNotEqualTo(Secret.of("a")).isNotEqualTo("a1");
        assertThat(Secret.of("a1").matches("a1")).isTrue();
        assertThat(Secret.of("a1").matches("a2")).isFalse();
        assertThat(Secret.of("a1").matches(null)).isFalse();
        assertThat(Secret.NONE.matches("")).as("no secret matches nothing").isFalse();
    }
}
