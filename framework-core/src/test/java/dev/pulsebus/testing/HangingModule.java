package dev.pulsebus.testing;

import dev.pulsebus.command.Command;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import java.util.concurrent.CountDownLatch;

/**
 * Module {@code hanger}: its inline command {@code /hang}, and its handler of the message {@code hang}, never
 * return until they are interrupted (for the tests of stalled handlers, shared through the core test jar).
 */
public final class HangingModule implements BotModule {

    /** Counted down when {@code /hang} starts, and when it is interrupted. */
    public final CountDownLatch hanging = new CountDownLatch(1);
    public final CountDownLatch interrupted = new CountDownLatch(1);

    @Override
    public String name() {
        return "hanger";
    }

    @Override
    public void onLoad(ModuleContext ctx) {
        ctx.commands().register(Command.named("hang").handler(call -> hang()));
        ctx.bus().subscribe(MessageEvent.class, e -> {
            if (e.message().plainText().equals("hang")) {
                hang();
            }
        });
    }

    private void hang() {
        hanging.countDown();
        try {
            new CountDownLatch(1).await();
        } catch (InterruptedException e) {
            interrupted.countDown();
        }
    }
}
