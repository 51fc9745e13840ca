package dev.pulsebus.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.internal.SlowCalls;
import dev.pulsebus.testing.LogCapture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Command runs are timed by outcome, and a slow one is warned about with its module and counted. */
class CommandTimingTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(SlowCalls.class);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private long runs(Outcome outcome) {
        return registry.get("pulsebus.command.duration").tag("outcome", outcome.label()).timer().count();
    }

    @Test
    void runsAreTimedByOutcome() {
        CommandRouter r = CommandRouter.builder().meterRegistry(registry).latencySampling(1).build();
        r.register(Command.named("echo").handler(c -> c.reply(c.rest())));
        r.register(Command.named("boom").handler(c -> {
            throw new IllegalStateException("on purpose");
        }));
        r.register(Command.named("limited").cooldown(Duration.ofHours(1), Scope.USER).handler(c -> { }));
        r.route(Msg.of("/echo a"));
        r.route(Msg.of("/echo b"));
        r.route(Msg.of("/boom"));
        r.route(Msg.of("/limited"));
        r.route(Msg.of("/limited"));
        r.route(Msg.of("/nosuch"));
        r.route(Msg.of("plain text"));
        assertThat(runs(Outcome.OK)).isEqualTo(3);
        assertThat(runs(Outcome.ERROR)).isEqualTo(1);
        assertThat(runs(Outcome.COOLDOWN)).isEqualTo(1);
        assertThat(registry.find("pulsebus.command.duration").tag("outcome", "unknown").timer())
                .as("not a command run").isNull();
    }

    @Test
    void oneCallInTheSamplingIsTimedAndEveryCallCounted() {
        CommandRouter r = CommandRouter.builder().meterRegistry(registry).latencySampling(4).build();
        r.register(Command.named("echo").handler(c -> c.reply(c.rest())));
        for (int i = 0; i < 8; i++) {
            r.route(Msg.of("/echo " + i));
        }
        assertThat(runs(Outcome.OK)).as("the 1st and the 5th call").isEqualTo(2);
        assertThat(registry.get("pulsebus.commands.calls").tag("command", "echo").tag("outcome", "ok")
                .functionCounter().count()).isEqualTo(8);
        assertThatThrownBy(() -> CommandRouter.builder().latencySampling(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
    }

    @Test
    void aSlowCommandIsLoggedWithItsModuleAndCounted() {
        CommandRouter r = CommandRouter.builder().meterRegistry(registry).latencySampling(1)
                .slowCommand(Duration.ofMillis(30)).build();
        r.register("weather", Command.named("forecast").handler(c -> Thread.sleep(60)));
        r.register("weather", Command.named("now").handler(c -> { }));
        r.route(Msg.of("/now"));
        r.route(Msg.of("/forecast"));
        r.route(Msg.of("/forecast"));
        assertThat(registry.get("pulsebus.handler.slow").tag("module", "weather").counter().count()).isEqualTo(2);
        assertThat(log.lines()).hasSize(1);
        assertThat(log.lines().get(0)).contains("command 'forecast'").contains("module weather");
    }
}
