package dev.pulsebus.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void delaysDoubleFromHalfASecondToThirtySeconds() {
        Backoff b = new Backoff(() -> 1.0);
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            delays.add(b.next());
        }
        assertThat(delays).containsExactly(500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L, 30000L, 30000L);
    }

    @Test
    void jitterDrawsBetweenHalfTheDelayAndAllOfIt() {
        Backoff low = new Backoff(() -> 0.0);
        assertThat(low.next()).isEqualTo(250);
        assertThat(low.next()).isEqualTo(500);
        Backoff mid = new Backoff(() -> 0.5);
        mid.next();
        assertThat(mid.next()).isEqualTo(750);
    }

    @Test
    void resetStartsOverAfterAConnectionThatWorked() {
        Backoff b = new Backoff(() -> 1.0);
        b.next();
        b.next();
        b.reset();
        assertThat(b.next()).isEqualTo(500);
    }
}
