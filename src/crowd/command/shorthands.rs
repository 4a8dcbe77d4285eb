//! The one-line command methods both crowds have ([`super::super::Crowd`]
//! and [`super::super::ReferenceCrowd`]): each queues one [`super::Command`]
//! through the crowd's own `command`, so the two can never disagree on
//! what a shorthand sends.

/// Expands, inside an `impl` of a crowd with `fn command(&mut self, c:
/// usize, cmd: Command) -> Result<()>`, to its shorthand methods.
macro_rules! command_shorthands {
    () => {
        /// Queues [`Command::Play`](crate::crowd::Command::Play).
        pub fn play(
            &mut self,
            c: usize,
            a: crate::crowd::Source,
            b: crate::crowd::Source,
        ) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::Play { a, b })
        }

        /// Queues [`Command::Transition`](crate::crowd::Command::Transition).
        pub fn transition(
            &mut self,
            c: usize,
            a: crate::crowd::Source,
            b: crate::crowd::Source,
            duration: f32,
            halflife: f32,
        ) -> crate::Result<()> {
            let cmd = crate::crowd::Command::Transition {
                a,
                b,
                duration,
                halflife,
            };
            self.command(c, cmd)
        }

        /// Queues [`Command::SetWeight`](crate::crowd::Command::SetWeight).
        pub fn set_weight(&mut self, c: usize, weight: f32) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetWeight { weight })
        }

        /// Queues [`Command::WeightToward`](crate::crowd::Command::WeightToward).
        pub fn weight_toward(&mut self, c: usize, target: f32, halflife: f32) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::WeightToward { target, halflife })
        }

        /// Queues [`Command::SetRate`](crate::crowd::Command::SetRate).
        pub fn set_rate(
            &mut self,
            c: usize,
            source: crate::crowd::Which,
            rate: f32,
        ) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetRate { source, rate })
        }

        /// Queues [`Command::SetEnd`](crate::crowd::Command::SetEnd).
        pub fn set_end(
            &mut self,
            c: usize,
            source: crate::crowd::Which,
            end: crate::crowd::ClipEnd,
        ) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetEnd { source, end })
        }

        /// Queues [`Command::SetRoot`](crate::crowd::Command::SetRoot).
        pub fn set_root(&mut self, c: usize, root: crate::crowd::Root) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetRoot(root))
        }

        /// Queues [`Command::PlayLayer`](crate::crowd::Command::PlayLayer).
        pub fn play_layer(
            &mut self,
            c: usize,
            layer: usize,
            source: crate::crowd::Source,
        ) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::PlayLayer { layer, source })
        }

        /// Queues [`Command::TransitionLayer`](crate::crowd::Command::TransitionLayer).
        pub fn transition_layer(
            &mut self,
            c: usize,
            layer: usize,
            source: crate::crowd::Source,
            duration: f32,
            halflife: f32,
        ) -> crate::Result<()> {
            let cmd = crate::crowd::Command::TransitionLayer {
                layer,
                source,
                duration,
                halflife,
            };
            self.command(c, cmd)
        }

        /// Queues [`Command::SetLayerWeight`](crate::crowd::Command::SetLayerWeight).
        pub fn set_layer_weight(
            &mut self,
            c: usize,
            layer: usize,
            weight: f32,
        ) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetLayerWeight { layer, weight })
        }

        /// Queues [`Command::LayerWeightToward`](crate::crowd::Command::LayerWeightToward).
        pub fn layer_weight_toward(
            &mut self,
            c: usize,
            layer: usize,
            target: f32,
            halflife: f32,
        ) -> crate::Result<()> {
            let cmd = crate::crowd::Command::LayerWeightToward {
                layer,
                target,
                halflife,
            };
            self.command(c, cmd)
        }

        /// Queues [`Command::SetBlendProfile`](crate::crowd::Command::SetBlendProfile).
        pub fn set_blend_profile(&mut self, c: usize, profile: Option<usize>) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetBlendProfile { profile })
        }

        /// Queues [`Command::SetPeriod`](crate::crowd::Command::SetPeriod).
        pub fn set_period(&mut self, c: usize, period: u32, phase: u32) -> crate::Result<()> {
            self.command(c, crate::crowd::Command::SetPeriod { period, phase })
        }
    };
}
pub(crate) use command_shorthands;
