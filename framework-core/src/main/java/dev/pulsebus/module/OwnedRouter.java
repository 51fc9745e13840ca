package dev.pulsebus.module;

import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.CommandSource;
import dev.pulsebus.command.Outcome;
import java.util.Locale;

/** The command router as a module sees it: commands registered here are recorded in the module's scope. */
final class OwnedRouter implements CommandRouter {

    private final CommandRouter router;
    private final ModuleScope scope;

    OwnedRouter(CommandRouter router, ModuleScope scope) {
        this.router = router;
        this.scope = scope;
    }

    @Override
    public Registration register(Command command) {
        scope.ensureOpen();
        return scope.own(command.name(), router.register(scope.name(), command));
    }

    @Override
    public Outcome route(CommandSource source) {
        return router.route(source);
    }

    @Override
    public String text(Locale locale, String key, Object... namesAndValues) {
        return router.text(locale, key, namesAndValues);
    }
}
