package dev.pulsebus.example;

import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.CommandSource;
import dev.pulsebus.command.Outcome;
import dev.pulsebus.command.Scope;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

public final class CommandExample {

    /** A platform message as the router sees it. */
    record ChatMessage(String text, String userId, String chatId) implements CommandSource {
        @Override
        public CompletionStage<String> reply(String answer) {
            System.out.println("bot> " + answer);
            return CompletableFuture.completedFuture("local");
        }
    }

    public static void main(String[] args) {
        CommandRouter commands = CommandRouter.builder().prefixes("/", "!").caseInsensitive(true).build();

        commands.register(Command.named("weather").alias("w").usage("/weather <city>").help("Today's weather")
                .cooldown(Duration.ofSeconds(10), Scope.USER)
                .rateLimit(5, Duration.ofMinutes(1), Scope.CHAT)
                .handler(call -> call.reply("Sunny in " + call.arg(0))));
        commands.register(Command.named("roll").usage("/roll <sides>").help("Roll a die")
                .handler(call -> call.reply("You rolled " + (1 + ThreadLocalRandom.current().nextInt(call.argInt(0))))));

        for (String text : List.of("/weather Tokyo", "!W Paris", "/roll abc", "hello there")) {
            Outcome outcome = commands.route(new ChatMessage(text, "ann", "group-1"));
            System.out.println(text + " -> " + outcome);
        }
    }
}
